import { BenchmarkResult, type SampleResult } from "@fastrag/bench-core";
import { own, setOwn } from "../internal/own.js";

export interface FakeRun {
  name: string;
  /** metric → one score per sample (null = not scorable; "error" = the sample errored). */
  scores: Record<string, readonly (number | null | "error")[]>;
  higherIsBetter?: Record<string, boolean>;
  /** Sample ids; `false` to leave them out. Default q1, q2, … */
  ids?: readonly string[] | false;
  questions?: readonly string[];
  fingerprint?: string;
  /** Per sample: its metadata (undefined: none). */
  metadata?: readonly (Record<string, unknown> | undefined)[];
}

/**
 * Builds an in-memory result; summaries are recomputed by core. Metric names are stored as own
 * properties, so `__proto__` or `constructor` work (write them as computed keys:
 * `{ ["__proto__"]: [1, 0] }`).
 */
export function makeResult(run: FakeRun): BenchmarkResult {
  const metrics = Object.keys(run.scores);
  const n = metrics.length === 0 ? 0 : (own(run.scores, metrics[0] as string) as unknown[]).length;
  const samples: SampleResult[] = [];
  for (let i = 0; i < n; i++) {
    const scores: Record<string, number | null> = {};
    let errored = false;
    let incomplete = false;
    for (const m of metrics) {
      const v = (own(run.scores, m) as (number | null | "error")[])[i];
      if (v === "error") errored = true;
      else if (v === null || v === undefined) incomplete = true;
      setOwn(scores, m, typeof v === "number" ? v : null);
    }
    if (errored) for (const m of metrics) setOwn(scores, m, null);
    const sample: SampleResult = {
      question: run.questions?.[i] ?? `question ${i + 1}?`,
      status: errored ? "errored" : incomplete ? "incomplete" : "successful",
      scores,
      answer: errored ? null : `answer ${i + 1}`,
      retrievedIds: [],
      retrievedUris: [],
      latencyMs: errored ? null : 10,
      error: errored ? `boom ${i + 1}` : null,
    };
    const metadata = run.metadata?.[i];
    if (metadata !== undefined)
      (sample as { metadata?: Record<string, unknown> }).metadata = metadata;
    const id = run.ids === false ? undefined : (run.ids?.[i] ?? `q${i + 1}`);
    samples.push(id === undefined ? sample : { sampleId: id, ...sample });
  }
  const higherIsBetter: Record<string, boolean> = {};
  for (const m of metrics) {
    const given = run.higherIsBetter === undefined ? undefined : own(run.higherIsBetter, m);
    setOwn(higherIsBetter, m, given ?? !m.endsWith("_ms"));
  }
  return new BenchmarkResult({
    name: run.name,
    createdAt: new Date("2025-01-01T00:00:00Z"),
    durationS: 1,
    samples,
    higherIsBetter,
    ...(run.fingerprint ? { dataset: { fingerprint: run.fingerprint, size: n } } : {}),
  });
}
