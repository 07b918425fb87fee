import { createHash } from "node:crypto";
import type { EvalSample } from "../types.js";

/**
 * A hash of the samples of shard `index` of `count`, by their ids and questions in order: what a
 * shard's result holds, so that `merge` can tell a shard from the one whose index it claims.
 * `sampleIds[j]` and `questions[j]` are the shard's j-th sample's.
 */
export function fingerprintShard(
  index: number,
  count: number,
  length: number,
  sampleId: (j: number) => string | undefined,
  question: (j: number) => string,
): string {
  const hash = createHash("sha256");
  let buffer = `${index}/${count}\n`;
  for (let j = 0; j < length; j++) {
    buffer += `${JSON.stringify([sampleId(j) ?? null, question(j)])}\n`;
    if (buffer.length > 1 << 20) {
      hash.update(buffer);
      buffer = "";
    }
  }
  hash.update(buffer);
  return `sha256:${hash.digest("hex").slice(0, 32)}`;
}

/**
 * A stable hash of what defines a dataset for scoring: each sample's id, question, expected
 * answers, relevant ids and graded relevance, in order. Metadata is left out: it does not change
 * what a metric scores against.
 */
export function fingerprintSamples(samples: readonly EvalSample[]): string {
  const hash = createHash("sha256");
  let buffer = "";
  for (let i = 0; i < samples.length; i++) {
    const s = samples[i] as EvalSample;
    buffer += JSON.stringify([s.id ?? null, s.question, s.expectedAnswers, s.relevantIds]);
    const relevance = s.relevance;
    if (relevance !== undefined) {
      // Judgments in their own order: a dataset read from the same file fingerprints the same.
      // (Sorting them cost more than the rest of the hash on 10^5-query qrels.)
      for (const id in relevance) buffer += `\u0000${id}\u0001${relevance[id]}`;
    }
    buffer += "\n";
    if (buffer.length > 1 << 20) {
      hash.update(buffer);
      buffer = "";
    }
  }
  hash.update(buffer);
  return `sha256:${hash.digest("hex").slice(0, 32)}`;
}
