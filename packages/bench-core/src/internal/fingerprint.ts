import { createHash } from "node:crypto";
import type { EvalSample } from "../types.js";

/**
 * A stable hash of what defines a dataset for scoring: each sample's id, question, expected
 * answers, relevant ids and graded relevance, in order. Metadata is left out: it does not change
 * what a metric scores against.
 */
export function fingerprintSamples(samples: readonly EvalSample[]): string {
  const hash = createHash("sha256");
  const parts: string[] = [];
  for (let i = 0; i < samples.length; i++) {
    const s = samples[i] as EvalSample;
    parts.push(
      JSON.stringify([
        s.id ?? null,
        s.question,
        s.expectedAnswers,
        s.relevantIds,
        s.relevance === undefined ? null : sortedEntries(s.relevance),
      ]),
    );
    if (parts.length === 1024) {
      hash.update(parts.join("\n"));
      parts.length = 0;
    }
  }
  hash.update(parts.join("\n"));
  return `sha256:${hash.digest("hex").slice(0, 32)}`;
}

function sortedEntries(record: Readonly<Record<string, number>>): [string, number][] {
  return Object.entries(record).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}
