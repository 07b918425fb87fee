// Judge calls and tokens per sample of the judge metrics (issue 39), against RAGAS's call count
// for the same metrics read from its source (src/ragas/metrics/_*.py; see the table below).
//
// Our calls are counted, not computed: each metric set runs through the real runner with a
// scripted judge that answers every step consistently (a statement is supported by a text when
// the text contains it), on samples with k retrieved chunks. Tokens are estimated as characters / 4
// of each prompt and reply (no tokenizer ships here: the figure compares our own steps, not
// providers). RAGAS's count is the number of LLM calls its `_ascore` makes per sample:
//   faithfulness 2 (statements, NLI), context_precision k, context_recall 1,
//   answer_relevancy strictness (3: one question_generation call each),
//   factual_correctness (f1) 4 (claims + NLI, both ways), noise_sensitivity 2 + 2k + 1,
//   answer_correctness 3 (statements of answer and of reference, classification);
//   and for the other names: context_utilization k, factual_precision 2, factual_recall 4,
//   noise_sensitivity_irrelevant 2 + 2k + 1 (RAGAS runs each mode as its own metric).
import { Benchmark } from "../packages/bench-core/dist/index.js";
import {
  fakeDataset,
  fakeEmbed,
  fakeEngine,
  scriptedJudge,
} from "../packages/bench-core/dist/testing.js";
import {
  AnswerCorrectness,
  AnswerRelevancy,
  ContextPrecision,
  ContextRecall,
  FactualCorrectness,
  Faithfulness,
  NoiseSensitivity,
} from "../packages/bench-metrics/dist/generation.js";

const SAMPLES = 20;
const split = (t) =>
  t
    .split(". ")
    .map((s) => s.trim())
    .filter(Boolean);
let chars = 0;
function tracked(reply) {
  chars += JSON.stringify(reply).length;
  return reply;
}
const has = (text, s) => text.includes(s.replace(/\.$/, ""));
const judge = scriptedJudge({
  statements: ({ answer }) => tracked({ statements: split(answer) }),
  claims: ({ text }) => tracked({ claims: split(text) }),
  verdicts: ({ context, statements }) =>
    tracked({
      verdicts: statements.map((s) => ({
        statement: s,
        reason: "found in the context",
        verdict: has(context, s) ? 1 : 0,
      })),
    }),
  context_verdict: ({ context, reference }) =>
    tracked({
      reason: "shares a fact",
      verdict: split(reference).some((s) => has(context, s)) ? 1 : 0,
    }),
  attributions: ({ context, reference }) =>
    tracked({
      attributions: split(reference).map((s) => ({
        statement: s,
        reason: "in the context",
        attributed: has(context, s) ? 1 : 0,
      })),
    }),
  question_generation: ({ answer }, { attempt }) =>
    tracked({ question: `What about ${answer.slice(0, 30)} (${attempt})?`, noncommittal: 0 }),
  classification: ({ answer, ground_truth }) =>
    tracked({
      TP: answer.filter((s) => ground_truth.includes(s)).map((s) => ({ statement: s, reason: "" })),
      FP: answer
        .filter((s) => !ground_truth.includes(s))
        .map((s) => ({ statement: s, reason: "" })),
      FN: ground_truth
        .filter((s) => !answer.includes(s))
        .map((s) => ({ statement: s, reason: "" })),
    }),
});
const embed = fakeEmbed((t) => [1 + (t.length % 5), 2, 3]);

function fixture(k) {
  const samples = [];
  const replies = {};
  for (let i = 0; i < SAMPLES; i++) {
    const facts = Array.from({ length: 4 }, (_, f) => `Fact ${f} of topic ${i} holds`);
    samples.push({
      id: `q${i}`,
      question: `What holds for topic ${i}?`,
      expectedAnswers: [facts.slice(0, 3).join(". ")],
    });
    const chunks = Array.from({ length: k }, (_, c) => ({
      id: `c${i}-${c}`,
      text:
        c < 2
          ? `${facts[c]}. Some filler text about the topic.`
          : `Unrelated passage ${c} on another subject.`,
    }));
    replies[`q${i}`] = { answer: `${facts[0]}. ${facts[1]}. ${facts[3]}`, chunks };
  }
  return { dataset: fakeDataset(samples), engine: fakeEngine(replies) };
}

const SET = () => [
  new Faithfulness({ judge }),
  new ContextPrecision({ judge }),
  new ContextRecall({ judge }),
  new AnswerRelevancy({ judge, embed }),
  new FactualCorrectness({ judge }),
  new NoiseSensitivity({ judge }),
  new AnswerCorrectness({ judge, embed }),
];
const FULL = () => [
  ...SET(),
  new ContextPrecision({ judge, against: "answer" }),
  new FactualCorrectness({ judge, mode: "precision" }),
  new FactualCorrectness({ judge, mode: "recall" }),
  new NoiseSensitivity({ judge, mode: "irrelevant" }),
];
const ragasSet = (k) => 2 + k + 1 + 3 + 4 + (3 + 2 * k) + 3;
const ragasFull = (k) => ragasSet(k) + k + 2 + 4 + (3 + 2 * k);

async function measure(metrics, k) {
  const { dataset, engine } = fixture(k);
  const before = judge.calls.length;
  chars = 0;
  const r = await new Benchmark({ dataset, metrics }).run(engine, { name: `k${k}` });
  const calls = judge.calls.slice(before);
  for (const c of calls) chars += c.prompt.length;
  if (r.status.successful !== SAMPLES)
    throw new Error(`k=${k}: ${JSON.stringify(r.status)} ${r.samples[0].error}`);
  return { calls: calls.length / SAMPLES, tokens: chars / 4 / SAMPLES, calls_list: calls };
}

console.log(
  `judge calls and estimated tokens per sample (${SAMPLES} samples, k retrieved chunks with text)`,
);
console.log("| set | k | our calls | RAGAS's calls | ratio | our tokens (est.) |");
console.log("| --- | ---: | ---: | ---: | ---: | ---: |");
for (const [label, make, ragas] of [
  ["the 7 metrics", SET, ragasSet],
  [
    "+ context_utilization, factual_precision/recall, noise_sensitivity_irrelevant",
    FULL,
    ragasFull,
  ],
]) {
  for (const k of [1, 3, 5, 10]) {
    const m = await measure(make(), k);
    const theirs = ragas(k);
    console.log(
      `| ${label} | ${k} | ${m.calls} | ${theirs} | ${(m.calls / theirs).toFixed(2)}× | ${Math.round(m.tokens)} |`,
    );
  }
}
const m = await measure(SET(), 5);
const bySteps = {};
for (const c of m.calls_list) bySteps[c.step] = (bySteps[c.step] ?? 0) + 1 / SAMPLES;
console.log(`\nour calls per sample by step, the 7 metrics, k = 5: ${JSON.stringify(bySteps)}`);
