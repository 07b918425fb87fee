import { BenchmarkResult, type SampleResult } from "@fastrag/bench-core";

/** The XSS probe: a question that would load an image and run script if it were not escaped. */
export const XSS_QUESTION = "<img src=x onerror=alert(1)>";
/** A run name that would close the report's script element if it were pasted into one raw. */
export const XSS_RUN = "</script><script>window.__xss=1</script>";

/** A tiny deterministic generator (mulberry32) so fixtures are the same on every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface RealisticOptions {
  readonly samples?: number;
  /** Run names; one result per name. */
  readonly names?: readonly string[];
  /** Replaces the question of sample 0. */
  readonly firstQuestion?: string;
}

/**
 * Realistic retrieval + answer runs over one dataset: ranked chunk ids, answers, a long-tailed
 * latency, a few errored samples (timeouts) and a few incomplete ones (no relevant ids), with
 * later runs a little better than the first on average.
 */
export function realisticRuns(options: RealisticOptions = {}): BenchmarkResult[] {
  const n = options.samples ?? 300;
  const names = options.names ?? ["bm25", "dense-e5", "hybrid-rrf"];
  const out: BenchmarkResult[] = [];
  for (let r = 0; r < names.length; r++) {
    const rand = rng(1000 + r);
    const samples: SampleResult[] = [];
    for (let i = 0; i < n; i++) {
      const question =
        i === 0 && options.firstQuestion !== undefined
          ? options.firstQuestion
          : `Which document explains topic ${i} (variant ${i % 7})?`;
      const errored = rand() < 0.02 + 0.01 * r;
      const unjudged = i % 97 === 5;
      const latency = 20 + 15 * r + rand() * 40 + (rand() < 0.05 ? 400 + rand() * 1500 : 0);
      if (errored) {
        samples.push({
          sampleId: `q${i}`,
          question,
          status: "errored",
          scores: { "recall@5": null, "ndcg@5": null, latency_ms: null },
          answer: null,
          retrievedIds: [],
          retrievedUris: [],
          latencyMs: null,
          error: `TimeoutError: sample q${i} took longer than 30000 ms`,
        });
        continue;
      }
      const skill = 0.55 + 0.08 * r;
      const hit = rand() < skill;
      const recall = unjudged ? null : hit ? 1 : rand() < 0.3 ? 0.5 : 0;
      const ndcg = recall === null ? null : recall === 0 ? 0 : Math.round(rand() * 1000) / 1000;
      const ids: string[] = [];
      for (let k = 0; k < 8; k++) ids.push(`doc-${(i * 7 + k * (r + 3)) % 911}#c${k}`);
      samples.push({
        sampleId: `q${i}`,
        question,
        status: recall === null ? "incomplete" : "successful",
        scores: { "recall@5": recall, "ndcg@5": ndcg, latency_ms: latency },
        answer: `Topic ${i} is explained in doc-${i % 911}.`,
        retrievedIds: ids,
        retrievedUris: ids.map(() => null),
        latencyMs: latency,
        error: recall === null ? "recall@5: no relevant ids" : null,
      });
    }
    out.push(
      new BenchmarkResult({
        name: names[r] as string,
        createdAt: new Date(Date.UTC(2025, 0, 10 + r, 9, 30)),
        durationS: 12.5 + r,
        samples,
        higherIsBetter: { "recall@5": true, "ndcg@5": true, latency_ms: false },
      }),
    );
  }
  return out;
}
