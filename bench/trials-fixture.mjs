// The run that bench/trials.mjs and bench/trials-load.mjs measure: 10,000 samples, an instant
// query engine (an answer and 5 chunks; right about two times in three, varying from call to
// call, so trials disagree) and two cheap metrics.
export const N = 10_000;
export const TRIALS = 5;
export const samples = Array.from({ length: N }, (_, i) => ({
  id: `q${i}`,
  question: `question ${i}`,
  expectedAnswers: [`answer ${i}`],
  relevantIds: [`d${i % 10}`],
}));
const chunks = Array.from({ length: 5 }, (_, j) => ({ id: `d${j}`, uri: `doc://${j}` }));
/** The engine's calls so far; a benchmark may reset it. */
export const counter = { calls: 0 };
export const engine = {
  query: async (question) => {
    counter.calls++;
    return { answer: counter.calls % 3 === 0 ? "wrong" : `answer ${question.slice(9)}`, chunks };
  },
};
export const exact = {
  name: "exact",
  higherIsBetter: true,
  needsRelevantIds: false,
  needsAnswer: true,
  score: ({ sample, answer }) => (answer === sample.expectedAnswers[0] ? 1 : 0),
};
export const hit = {
  name: "hit@5",
  higherIsBetter: true,
  needsRelevantIds: true,
  needsAnswer: false,
  score: ({ sample, retrieved }) => {
    const want = sample.relevantIds[0];
    for (let i = 0; i < retrieved.length; i++) if (retrieved[i].id === want) return 1;
    return 0;
  },
};
