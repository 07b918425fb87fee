// The samples most test configs score, and the answer that is right for each: `n` samples with
// ids q0…, questions "q 0"… (or `question(i)`) and the expected answer a0… (with `judged`, the
// relevant id d0…), made by core's test kit. Imported by the fixture configs (in a child
// process, through the package's dependencies) and by the configs tests write (in process).
import { fakeDataset } from "@fastrag/bench-core/testing";

export function answerSamples(n, { question = (i) => `q ${i}`, judged = false } = {}) {
  return fakeDataset(
    Array.from({ length: n }, (_, i) => ({
      id: `q${i}`,
      question: question(i),
      expectedAnswers: [`a${i}`],
      ...(judged ? { relevantIds: [`d${i}`] } : {}),
    })),
  );
}

/** The reply that scores 1 on `sample` with ExactMatch. */
export const rightAnswer = (sample) => ({ answer: `a${sample.id.slice(1)}` });
