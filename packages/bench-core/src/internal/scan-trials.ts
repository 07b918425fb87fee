// The trials of a result file's samples as the lazy reader scans them (`trials: n`, n > 1): each
// sample's trials checked against its own status and scores, counted, and folded into each
// metric's `trial_std`, without keeping a record. The rules are result/trials.ts's
// (`expectSampleTrials`, `trialStd`); this reads them from numbers in typed arrays.

/** A status, as a code: the index in {@link STATUS_NAMES}. */
export const SUCCESSFUL = 0;
export const ERRORED = 1;
export const INCOMPLETE = 2;
export const STATUS_NAMES = ["successful", "errored", "incomplete"] as const;

/** What a lazy load learned of its samples' trials. */
export interface ScannedTrials {
  /** Per sample, how many trials it holds; -1 when it has no `trials`. */
  readonly counts: Int32Array;
  /** Per metric, its `trial_std` over the samples (see `trialStd`); null when none has two scores. */
  readonly std: ReadonlyMap<string, number | null>;
}

/**
 * The trials of one sample at a time (the one being read), then, once the sample is kept, its
 * count and its share of each metric's `trial_std`.
 */
export class TrialTally {
  readonly #metrics: readonly string[];
  /** The status code of each trial of the sample being read. */
  #status: Uint8Array = new Uint8Array(8);
  /**
   * Each trial's scores, per metric: `scores[m][t]` for trial t; NaN where the trial has no
   * number. Written by the reader at the trial number {@link TrialTally.add} returns.
   */
  scores: Float64Array[];
  /** Trials of the sample being read. */
  count = 0;
  /** Per metric: the sum of the samples' standard deviations, and how many samples. */
  readonly #stdSum: Float64Array;
  readonly #stdN: Int32Array;
  /** Per row, the trials it holds (-1: none); made at the first sample with trials. */
  #counts: Int32Array | undefined;

  constructor(metrics: readonly string[]) {
    this.#metrics = metrics;
    this.scores = metrics.map(() => new Float64Array(8));
    this.#stdSum = new Float64Array(metrics.length);
    this.#stdN = new Int32Array(metrics.length);
  }

  /** Starts the trials of another sample. */
  start(): void {
    this.count = 0;
  }

  /** One more trial with status `code`: its number, where its scores go in `scores[m]`. */
  add(code: number): number {
    if (this.count === this.#status.length) {
      const status = new Uint8Array(2 * this.#status.length);
      status.set(this.#status);
      this.#status = status;
      this.scores = this.scores.map((c) => {
        const next = new Float64Array(2 * c.length);
        next.set(c);
        return next;
      });
    }
    const t = this.count++;
    this.#status[t] = code;
    const scores = this.scores;
    for (let m = 0; m < scores.length; m++) (scores[m] as Float64Array)[t] = Number.NaN;
    return t;
  }

  /**
   * Whether the trials read agree with their sample as `expectSampleTrials` requires: at least one;
   * the sample's status the one they give; its score of each metric it lists (`present[m]` is
   * `stamp`) their mean, to 1e-9 of the largest trial score's magnitude. The sample's scores are
   * `cols[m][row]` (NaN: null).
   */
  agrees(
    status: number,
    cols: readonly Float64Array[],
    row: number,
    present: Int32Array,
    stamp: number,
  ): boolean {
    const n = this.count;
    if (n === 0) return false;
    let errored = 0;
    let successful = 0;
    for (let t = 0; t < n; t++) {
      const s = this.#status[t];
      if (s === ERRORED) errored++;
      else if (s === SUCCESSFUL) successful++;
    }
    const want = errored === n ? ERRORED : successful === n ? SUCCESSFUL : INCOMPLETE;
    if (want !== status) return false;
    for (let m = 0; m < cols.length; m++) {
      if (present[m] !== stamp) continue;
      const trial = this.scores[m] as Float64Array;
      let sum = 0;
      let k = 0;
      let size = 0;
      for (let t = 0; t < n; t++) {
        const v = trial[t] as number;
        if (Number.isNaN(v)) continue;
        sum += v;
        k++;
        const a = Math.abs(v);
        if (a > size) size = a;
      }
      const have = (cols[m] as Float64Array)[row] as number;
      if (k === 0 || Number.isNaN(have)) {
        if (k !== 0 || !Number.isNaN(have)) return false;
        continue;
      }
      if (!(Math.abs(have - sum / k) <= Math.max(1e-9 * size, 4 * Number.MIN_VALUE))) return false;
    }
    return true;
  }

  /** Keeps the trials read as those of the sample at `row` (of `capacity` rows so far). */
  keep(row: number, capacity: number): void {
    if (this.#counts === undefined) this.#counts = new Int32Array(capacity).fill(-1);
    this.#counts[row] = this.count;
    const n = this.count;
    for (let m = 0; m < this.scores.length; m++) {
      // Welford, in trial order: the same numbers `trialStd` computes from the records.
      const trial = this.scores[m] as Float64Array;
      let count = 0;
      let mean = 0;
      let m2 = 0;
      for (let t = 0; t < n; t++) {
        const v = trial[t] as number;
        if (Number.isNaN(v)) continue;
        count++;
        const d = v - mean;
        mean += d / count;
        m2 += d * (v - mean);
      }
      if (count < 2) continue;
      this.#stdSum[m] = (this.#stdSum[m] as number) + Math.sqrt(Math.max(0, m2) / (count - 1));
      this.#stdN[m] = (this.#stdN[m] as number) + 1;
    }
  }

  /** Room for `capacity` rows. */
  grow(capacity: number): void {
    if (this.#counts === undefined) return;
    const counts = new Int32Array(capacity).fill(-1);
    counts.set(this.#counts);
    this.#counts = counts;
  }

  /** What was learned of `rows` samples; undefined when none had trials. */
  result(rows: number): ScannedTrials | undefined {
    const counts = this.#counts;
    if (counts === undefined) return undefined;
    const std = new Map<string, number | null>();
    for (let m = 0; m < this.#metrics.length; m++) {
      const n = this.#stdN[m] as number;
      std.set(this.#metrics[m] as string, n === 0 ? null : (this.#stdSum[m] as number) / n);
    }
    return { counts: counts.length === rows ? counts : counts.slice(0, rows), std };
  }
}
