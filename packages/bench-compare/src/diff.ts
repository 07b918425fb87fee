import {
  type BenchmarkResult,
  ConfigurationError,
  type SampleResult,
  type SampleStatus,
} from "@fastrag/bench-core";
import { type ChangeKind, classifyPairs } from "./internal/classify-pairs.js";
import { hasOwn, own } from "./internal/own.js";
import { expectResult } from "./internal/validate.js";
import type { PairingKey } from "./pairing.js";

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
  /** Pairs with the same score in both runs, up to floating-point rounding. */
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
 * position). A null score is never read as 0. Scores equal up to floating-point rounding
 * (`0.1 + 0.2` against `0.3`: within 1e-12 of the larger score, or of the largest |score| of the
 * metric in either run) are unchanged, as the paired tests and `check()` judge them.
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
  expectResult(baseline, "diff: baseline");
  expectResult(candidate, "diff: candidate");
  const metric = options?.metric;
  if (typeof metric !== "string") {
    throw new ConfigurationError(
      `diff: expected options.metric to be a metric name, found ${typeof metric}`,
      { kind: "invalid-option", option: "metric" },
    );
  }
  for (const r of [baseline, candidate]) {
    if (!hasOwn(r.higherIsBetter, metric)) {
      throw new ConfigurationError(
        `diff: run "${r.name}" has no metric "${metric}"; it has ${r.metrics.map((m) => `"${m}"`).join(", ") || "none"}`,
        { kind: "invalid-option", option: "metric" },
      );
    }
  }
  const higher = own(baseline.higherIsBetter, metric) as boolean;
  if (own(candidate.higherIsBetter, metric) !== higher) {
    throw new ConfigurationError(
      `diff: runs "${baseline.name}" and "${candidate.name}" disagree on the direction of "${metric}"`,
      { kind: "invalid-input", field: "higher_is_better" },
    );
  }
  const c = classifyPairs(baseline, candidate, metric, higher, sampleChange);
  return {
    metric,
    higherIsBetter: higher,
    pairedBy: c.pairedBy,
    improved: c.improved,
    regressed: c.regressed,
    newlyErrored: c.newlyErrored,
    recovered: c.recovered,
    unchanged: c.unchanged,
    leftOut: c.leftOut,
  };
}

/** The `SampleChange` of one changed pair; the error shown is the side that errored. */
function sampleChange(
  kind: ChangeKind,
  b: SampleResult,
  c: SampleResult,
  vb: number | null,
  vc: number | null,
): SampleChange {
  const error = kind === "newly-errored" ? c.error : kind === "recovered" ? b.error : null;
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
