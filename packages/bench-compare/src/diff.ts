import {
  type BenchmarkResult,
  ConfigurationError,
  type SampleResult,
  type SampleStatus,
} from "@fastrag/bench-core";
import { hasOwn, own } from "./internal/own.js";
import { type PairingKey, pairSamples } from "./pairing.js";

/** Options of {@link diff}. */
export interface DiffOptions {
  /** The metric compared. */
  readonly metric: string;
}

/** One sample whose score or status changed between two runs. */
export interface SampleChange {
  readonly sampleId?: string;
  readonly question: string;
  /** Score in the baseline; `null` when not scored there (errored, or the metric was null). */
  readonly baseline: number | null;
  readonly candidate: number | null;
  /** `candidate − baseline`, or `null` when either score is missing. */
  readonly change: number | null;
  readonly baselineStatus: SampleStatus;
  readonly candidateStatus: SampleStatus;
  /** The candidate's error message (newly errored) or the baseline's (recovered). */
  readonly error: string | null;
}

/** The per-sample differences of two runs on one metric. */
export interface SampleDiff {
  readonly metric: string;
  readonly higherIsBetter: boolean;
  readonly pairedBy: PairingKey;
  /** Better in the candidate, in the metric's direction; biggest gain first. */
  readonly improved: SampleChange[];
  /** Worse in the candidate; biggest loss first. */
  readonly regressed: SampleChange[];
  /** Errored in the candidate, not in the baseline; highest baseline score (what was lost) first. */
  readonly newlyErrored: SampleChange[];
  /** Errored in the baseline, not in the candidate; highest candidate score first. */
  readonly recovered: SampleChange[];
  /** Pairs with the same score in both runs. */
  readonly unchanged: number;
  /**
   * Pairs left out: errored in both runs, or a `null` score on a side that did not error
   * (not scorable is not a change).
   */
  readonly leftOut: number;
}

/**
 * Lists the samples that improved, regressed, became errored or recovered from `baseline` to
 * `candidate` on one metric, with both scores, sorted by change (ties keep dataset order).
 * Samples are paired as the significance tests pair them (sample id, else question, else
 * position). A null score is never read as 0.
 *
 * @throws {ConfigurationError} when either run lacks the metric, or the runs cover different
 * datasets.
 * @example
 * ```ts
 * const d = diff(bm25, hybrid, { metric: "recall@5" });
 * for (const s of d.regressed) console.log(s.sampleId, s.baseline, "→", s.candidate);
 * ```
 */
export function diff(
  baseline: BenchmarkResult,
  candidate: BenchmarkResult,
  options: DiffOptions,
): SampleDiff {
  const metric = options?.metric;
  if (typeof metric !== "string") {
    throw new ConfigurationError(
      `diff: expected options.metric to be a metric name, found ${typeof metric}`,
    );
  }
  for (const r of [baseline, candidate]) {
    if (!hasOwn(r.higherIsBetter, metric)) {
      throw new ConfigurationError(
        `diff: run "${r.name}" has no metric "${metric}"; it has ${r.metrics.map((m) => `"${m}"`).join(", ") || "none"}`,
      );
    }
  }
  const higher = own(baseline.higherIsBetter, metric) as boolean;
  if (own(candidate.higherIsBetter, metric) !== higher) {
    throw new ConfigurationError(
      `diff: runs "${baseline.name}" and "${candidate.name}" disagree on the direction of "${metric}"`,
    );
  }
  const pairing = pairSamples(baseline, candidate);
  const improved: SampleChange[] = [];
  const regressed: SampleChange[] = [];
  const newlyErrored: SampleChange[] = [];
  const recovered: SampleChange[] = [];
  let unchanged = 0;
  let leftOut = 0;
  for (let i = 0; i < pairing.indexA.length; i++) {
    const b = baseline.samples[pairing.indexA[i] as number] as SampleResult;
    const c = candidate.samples[pairing.indexB[i] as number] as SampleResult;
    const bErr = b.status === "errored";
    const cErr = c.status === "errored";
    const vb = bErr ? null : (own(b.scores, metric) ?? null);
    const vc = cErr ? null : (own(c.scores, metric) ?? null);
    if (bErr && cErr) {
      leftOut++;
      continue;
    }
    if (cErr) {
      newlyErrored.push(change(b, c, vb, null, c.error));
      continue;
    }
    if (bErr) {
      recovered.push(change(b, c, null, vc, b.error));
      continue;
    }
    if (vb === null || vc === null) {
      leftOut++;
      continue;
    }
    const d = vc - vb;
    if (d === 0) unchanged++;
    else if (d > 0 === higher) improved.push(change(b, c, vb, vc, null));
    else regressed.push(change(b, c, vb, vc, null));
  }
  // Array.prototype.sort is stable: ties keep dataset order.
  improved.sort((x, y) => Math.abs(y.change as number) - Math.abs(x.change as number));
  regressed.sort((x, y) => Math.abs(y.change as number) - Math.abs(x.change as number));
  newlyErrored.sort((x, y) => rank(y.baseline, higher) - rank(x.baseline, higher));
  recovered.sort((x, y) => rank(y.candidate, higher) - rank(x.candidate, higher));
  return {
    metric,
    higherIsBetter: higher,
    pairedBy: pairing.key,
    improved,
    regressed,
    newlyErrored,
    recovered,
    unchanged,
    leftOut,
  };
}

/** Orders scores best first in the metric's direction; a null score (unscored) goes last. */
function rank(v: number | null, higher: boolean): number {
  if (v === null) return Number.NEGATIVE_INFINITY;
  return higher ? v : -v;
}

function change(
  b: SampleResult,
  c: SampleResult,
  vb: number | null,
  vc: number | null,
  error: string | null,
): SampleChange {
  const out: SampleChange = {
    question: b.question,
    baseline: vb,
    candidate: vc,
    change: vb === null || vc === null ? null : vc - vb,
    baselineStatus: b.status,
    candidateStatus: c.status,
    error,
  };
  const id = b.sampleId ?? c.sampleId;
  return id === undefined ? out : { sampleId: id, ...out };
}
