// Checking the dataset's samples when a Benchmark is built.

import { describeValue } from "../describe-value.js";
import { ConfigurationError } from "../errors.js";
import type { EvalSample, Metadata } from "../types.js";

/**
 * Whether a sample judges some id relevant: a relevant id, or a positive grade in `relevance`. A
 * graded metric such as nDCG scores a sample graded above 0 whose `relevantIds` a threshold left
 * empty (trec_eval's `-l` narrows the binary measures only), so such a sample counts.
 */
export function isJudged(sample: EvalSample<Metadata>): boolean {
  if (sample.relevantIds.length > 0) return true;
  const relevance = sample.relevance;
  if (relevance === undefined) return false;
  for (const id in relevance) {
    if (Object.hasOwn(relevance, id) && (relevance[id] as number) > 0) return true;
  }
  return false;
}

/** Where a sample is, for messages; built only when one is thrown (10^5 samples, 10^5 strings). */
function sampleLocation(s: Record<string, unknown> | null, i: number): string {
  return `Benchmark: dataset sample ${i}${typeof s?.id === "string" ? ` (id "${s.id}")` : ""}`;
}

export function expectSample(sample: unknown, i: number): void {
  const s = sample as Record<string, unknown> | null;
  if (typeof s !== "object" || s === null)
    throw new ConfigurationError(`${sampleLocation(s, i)}: expected an object`, {
      kind: "invalid-input",
    });
  if (s.id !== undefined && typeof s.id !== "string") {
    // A numeric id would pair with nothing once a saved result turns it into a string.
    throw new ConfigurationError(
      `${sampleLocation(s, i)}: id must be a string, found ${describeValue(s.id)}`,
      { kind: "invalid-input", field: "id" },
    );
  }
  if (typeof s.question !== "string") {
    throw new ConfigurationError(
      `${sampleLocation(s, i)}: question must be a string, found ${describeValue(s.question)}`,
      { kind: "invalid-input", field: "question" },
    );
  }
  expectStrings(s.expectedAnswers, "expectedAnswers", s, i);
  expectStrings(s.relevantIds, "relevantIds", s, i);
  const relevance = s.relevance;
  if (relevance !== undefined) {
    if (typeof relevance !== "object" || relevance === null || Array.isArray(relevance)) {
      throw new ConfigurationError(
        `${sampleLocation(s, i)}: relevance must be an object of id → grade, found ${describeValue(relevance)}`,
        { kind: "invalid-input", field: "relevance" },
      );
    }
    // Object.keys, not for…in (docs/decisions/core-hot-paths.md).
    const ids = Object.keys(relevance);
    for (let k = 0; k < ids.length; k++) {
      const id = ids[k] as string;
      const grade = (relevance as Record<string, unknown>)[id];
      if (typeof grade !== "number" || !Number.isFinite(grade)) {
        throw new ConfigurationError(
          `${sampleLocation(s, i)}: relevance["${id}"] must be a finite number, found ${describeValue(grade)}`,
          { kind: "invalid-input", field: "relevance" },
        );
      }
    }
  }
}

function expectStrings(v: unknown, key: string, s: Record<string, unknown>, i: number): void {
  if (!Array.isArray(v)) {
    throw new ConfigurationError(
      `${sampleLocation(s, i)}: ${key} must be an array of strings, found ${describeValue(v)}`,
      { kind: "invalid-input", field: key },
    );
  }
  const list = v as readonly unknown[];
  for (let k = 0; k < list.length; k++) {
    if (typeof list[k] !== "string") {
      // A hole in a sparse array reads as undefined: name it as the entry it is.
      const found = k in list ? describeValue(list[k]) : "an empty slot (a sparse array)";
      throw new ConfigurationError(
        `${sampleLocation(s, i)}: ${key}[${k}] must be a string, found ${found}`,
        { kind: "invalid-input", field: key },
      );
    }
  }
}

/**
 * The dataset a Benchmark is built with: not empty, every sample valid ({@link expectSample}), ids
 * unique. Returns each sample's question and id, by position.
 *
 * @throws {ConfigurationError} naming the first sample that is not.
 */
export function expectDataset(samples: readonly EvalSample[]): {
  questions: string[];
  ids: (string | undefined)[];
} {
  if (samples.length === 0)
    throw new ConfigurationError("Benchmark: the dataset has no samples", {
      kind: "invalid-input",
    });
  const ids = new Map<string, number>();
  const questions: string[] = new Array(samples.length);
  const sampleIds: (string | undefined)[] = new Array(samples.length);
  for (let i = 0; i < samples.length; i++) {
    expectSample(samples[i], i);
    const id = (samples[i] as EvalSample).id;
    questions[i] = (samples[i] as EvalSample).question;
    sampleIds[i] = id;
    if (id === undefined) continue;
    const first = ids.get(id);
    if (first !== undefined) {
      throw new ConfigurationError(
        `Benchmark: dataset samples ${first} and ${i} share the id "${id}"; ids must be unique (results pair samples by id)`,
        { kind: "invalid-input", field: "id" },
      );
    }
    ids.set(id, i);
  }
  return { questions, ids: sampleIds };
}
