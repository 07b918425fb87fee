// What a checkpoint journal keeps of a run, counted in samples, and those counts in the words of
// the messages that tell a user what a resume will start from.
import type { SampleResult } from "../types.js";

/**
 * What a checkpoint journal keeps, counted in samples. Without trials each line is a finished
 * sample; with `trials: n` a sample is finished once all n of its trials are kept, and the trials
 * of the others are counted apart.
 */
export interface JournaledCounts {
  /** Finished samples the journal keeps (a resume does not run them again). */
  readonly finishedSamples: number;
  /** With trials: trials the journal keeps of samples not finished yet; 0 without trials. */
  readonly unfinishedTrials: number;
  /** With trials: the unfinished samples those trials belong to; 0 without trials. */
  readonly unfinishedSamples: number;
}

/**
 * Counts the samples a checkpoint journal keeps. Without trials each line is a finished sample;
 * with `trials: n` (n > 1) each line is one trial, and a sample is finished once all n of its
 * trials are in: the others are counted apart, as trials of unfinished samples.
 */
export class JournaledCount {
  readonly #trials: number;
  /** Finished samples: lines of a run without trials, or samples with all their trials. */
  #finished = 0;
  /** With trials: the trials kept of each unfinished sample, by dataset position. */
  readonly #partial = new Map<number, number>();
  /** With trials: the sum of {@link JournaledCount.#partial}'s values. */
  #partialTrials = 0;

  constructor(trials: number) {
    this.#trials = trials;
  }

  /**
   * The count a resumed journal starts from: its finished samples (`finished`), and with trials
   * the trials it holds of each sample (`trials`, entry t set when trial t is kept).
   */
  static ofJournal(
    trials: number,
    finished: number,
    kept: ReadonlyMap<number, readonly (SampleResult | undefined)[]>,
  ): JournaledCount {
    const count = new JournaledCount(trials);
    count.#finished = finished;
    for (const [index, list] of kept) {
      for (const r of list) if (r !== undefined) count.add(index, 0);
    }
    return count;
  }

  /** One more line kept: a finished sample, or with `trial` one trial of the sample at `index`. */
  add(index: number, trial?: number): void {
    if (trial === undefined || this.#trials <= 1) {
      this.#finished++;
      return;
    }
    const kept = (this.#partial.get(index) ?? 0) + 1;
    if (kept >= this.#trials) {
      this.#partial.delete(index);
      this.#partialTrials -= kept - 1;
      this.#finished++;
    } else {
      this.#partial.set(index, kept);
      this.#partialTrials++;
    }
  }

  /** Finished samples kept. */
  get finished(): number {
    return this.#finished;
  }

  /** With trials: trials kept of samples not finished yet. */
  get unfinishedTrials(): number {
    return this.#partialTrials;
  }

  /** With trials: samples with some, but not all, of their trials kept. */
  get unfinishedSamples(): number {
    return this.#partial.size;
  }

  /** The counts as data (see `JournalWriteError.journaled`). */
  counts(): JournaledCounts {
    return {
      finishedSamples: this.#finished,
      unfinishedTrials: this.#partialTrials,
      unfinishedSamples: this.#partial.size,
    };
  }
}

/**
 * What a journal keeps, in words: "12 finished samples"; with trials of unfinished samples kept,
 * "12 finished samples and 3 trials of 2 unfinished ones".
 */
export function journaledWords(counts: JournaledCounts): string {
  const finished = `${counts.finishedSamples} finished samples`;
  const t = counts.unfinishedTrials;
  if (t === 0) return finished;
  const u = counts.unfinishedSamples;
  return `${finished} and ${t} ${t === 1 ? "trial" : "trials"} of ${u} unfinished ${u === 1 ? "one" : "ones"}`;
}
