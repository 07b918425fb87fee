// The runner's side of a checkpoint journal: one run per journal in this process, resuming the
// samples a journal holds, and closing it without losing the result.
import { resolve as resolvePath } from "node:path";
import { errorMessage } from "../error-message.js";
import { ConfigurationError } from "../errors.js";
import type { JournalHeader } from "../internal/journal.js";
import { readJournal } from "../internal/journal-read.js";
import { JournalWriter } from "../internal/journal-writer.js";
import type { SampleResult } from "../types.js";
import { JournaledCount, type JournaledCounts, journaledWords } from "./journaled-count.js";
import type { RunOptions } from "./run-options.js";

/** The checkpoint journals runs of this process are using, by absolute path. */
const ACTIVE_JOURNALS = new Set<string>();

/**
 * Marks `options.checkpoint` as in use by a run of this process, or throws when another run of
 * this process is using it. Returns the key to release.
 */
export function claimJournal(options: RunOptions): string {
  const path = options.checkpoint as string;
  const key = resolvePath(path);
  if (ACTIVE_JOURNALS.has(key)) {
    throw new ConfigurationError(
      `${path}: another run of this process is using this checkpoint journal; two runs on one journal would both run the samples it lacks (give each run its own checkpoint path, or resume once the other has finished)`,
      { kind: "journal-in-use", path },
    );
  }
  ACTIVE_JOURNALS.add(key);
  return key;
}

/** Releases a journal claimed by {@link claimJournal}. */
export function releaseJournal(key: string): void {
  ACTIVE_JOURNALS.delete(key);
}

/** What {@link resumeJournal} reads a journal for, and where it puts what the journal holds. */
export interface ResumeRequest {
  readonly checkpoint: string;
  /** The run's header: a journal with another is refused. */
  readonly header: JournalHeader;
  /** Each sample's question and id as validated (a journal line must match its sample's). */
  readonly questions: readonly string[];
  readonly ids: readonly (string | undefined)[];
  /** Leave the errored samples (and trials) out, so that they run again. */
  readonly retryErrored: boolean;
  /** Where the finished samples go, by dataset position. */
  readonly slots: (SampleResult | undefined)[];
  /** Where each dropped line's warning goes. */
  readonly warn: (message: string) => void;
}

/**
 * Reads the journal at `checkpoint` (refusing one of another run), puts the samples it finished
 * into `slots` (errored ones only without `retryErrored`), hands each dropped line's warning to
 * `warn`, and opens it for appending.
 */
export async function resumeJournal(request: ResumeRequest): Promise<{
  writer: JournalWriter;
  kept: JournaledCount;
  trials: Map<number, (SampleResult | undefined)[]>;
}> {
  const { checkpoint, header, questions, ids, retryErrored, slots, warn } = request;
  const recovered = await readJournal(checkpoint, header, (i) => {
    const id = ids[i];
    return id === undefined
      ? { question: questions[i] as string }
      : { id, question: questions[i] as string };
  });
  for (const message of recovered.warnings) warn(message);
  for (const [index, sample] of recovered.finished) {
    if (retryErrored && sample.status === "errored") continue;
    slots[index] = sample;
  }
  // With trials: the finished trials of each sample (errored ones run again with retryErrored).
  const trials = recovered.trials;
  if (retryErrored) {
    for (const list of trials.values()) {
      for (let t = 0; t < list.length; t++) {
        if (list[t]?.status === "errored") list[t] = undefined;
      }
    }
  }
  const writer = await JournalWriter.open(checkpoint, header, recovered);
  const kept = JournaledCount.ofJournal(header.trials ?? 1, recovered.finished.size, trials);
  return { writer, kept, trials };
}

/** A run's warning handler: the caller's `onWarning`, else a process warning. */
export function warningHandler(
  onWarning: ((message: string) => void) | undefined,
): (m: string) => void {
  if (onWarning !== undefined) {
    return (message) => {
      try {
        onWarning(message);
      } catch {
        // A failing warning handler must not fail the run (as with onProgress).
      }
    };
  }
  return (message) => process.emitWarning(message, { code: "FASTRAG_BENCH_JOURNAL" });
}

/**
 * The journal as a run writes it: each finished sample appended; a write that fails either stops
 * the run (the default: {@link JournalSink.failure} is then set, and the run loop takes no new
 * sample) or, with `continueWithoutJournal`, is warned about at once and the run goes on.
 */
export class JournalSink {
  /** The first write failure, when the run must stop for it. */
  failure: unknown;
  /** Lines not journaled (samples, or with trials trials) after the journal failed. */
  unjournaled = 0;
  /** With trials: the samples a trial of which was not journaled, by dataset position. */
  private readonly unjournaledAt: Set<number> = new Set<number>();
  private givenUp = false;

  constructor(
    readonly writer: JournalWriter,
    /** What the journal held when the run started; counts every line written since, too. */
    readonly kept: JournaledCount,
    private readonly continueWithoutJournal: boolean,
    private readonly warn: (message: string) => void,
  ) {}

  /** Appends a finished sample, or with `trial` one finished trial of it. */
  append(index: number, record: SampleResult, trial?: number): void {
    if (this.givenUp || this.failure !== undefined) {
      this.unjournaled++;
      if (trial !== undefined) this.unjournaledAt.add(index);
      return;
    }
    try {
      this.writer.append(index, record, trial);
      this.kept.add(index, trial);
    } catch (error) {
      this.unjournaled++;
      if (trial !== undefined) this.unjournaledAt.add(index);
      if (!this.continueWithoutJournal) {
        this.failure = error;
        return;
      }
      this.givenUp = true;
      this.warn(
        `${errorMessage(error)}; going on without a journal (continueWithoutJournal): ${journaledWords(this.kept.counts())} are in it, and those from here on only in the run's result, so a crash from now on loses them`,
      );
    }
  }

  /**
   * The finished samples (in `slots`) the journal lacks but the run's partial result holds: those
   * whose line could not be written; with trials, those a trial line of which could not be
   * written (the trials of unfinished ones run again on resume).
   */
  unjournaledSamples(slots: readonly (SampleResult | undefined)[], trials: boolean): number {
    if (!trials) return this.unjournaled;
    let n = 0;
    for (const i of this.unjournaledAt) if (slots[i] !== undefined) n++;
    return n;
  }

  /** Whether the run must stop: a journal line could not be written. */
  get stopping(): boolean {
    return this.failure !== undefined;
  }

  /**
   * What the journal keeps (those it held, and the lines this run wrote whole): finished samples,
   * and with trials the trials of unfinished ones.
   */
  get journaled(): JournaledCounts {
    return this.kept.counts();
  }
}

/**
 * The note on the `n` finished samples the journal lacks but an error's partial result holds
 * (see {@link JournalSink.unjournaledSamples}): " (the 1 sample whose line could not be written
 * is in this error's partial result only)", or its plural, or with trials the same of samples
 * with a trial whose line could not be written. Empty when there are none.
 */
export function unjournaledNote(n: number, trials: boolean): string {
  if (n === 0) return "";
  if (trials) {
    return n === 1
      ? " (the 1 sample with a trial whose line could not be written is in this error's partial result only)"
      : ` (the ${n} samples with a trial whose line could not be written are in this error's partial result only)`;
  }
  return n === 1
    ? " (the 1 sample whose line could not be written is in this error's partial result only)"
    : ` (the ${n} samples whose lines could not be written are in this error's partial result only)`;
}

/** Closes the journal; a close never fails a run whose samples are all in memory. */
export async function closeJournal(journal: JournalWriter | undefined): Promise<void> {
  await journal?.close().catch(() => {});
}

/** The fields of a sample record that each trial has its own of (see `trialOf`). */
const TRIAL_KEYS = [
  "trials",
  "status",
  "scores",
  "answer",
  "retrievedIds",
  "retrievedUris",
  "latencyMs",
  "error",
  "attempts",
  "retrieved",
  "usage",
  "cached",
  "judgeUsage",
  "judgments",
  "errorStack",
] as const;

/**
 * Writes a new checkpoint journal at `path` holding `entries` (dataset position → finished
 * sample), as a run would have journaled them. The CLI's `run --retry-errored` after a finished
 * run seeds a journal from the saved result this way, so that the run resumes from it: only the
 * errored samples call the target again, and an interruption loses nothing. The file must not
 * exist yet.
 *
 * @throws {ConfigurationError} when the journal cannot be written (kind `unwritable-file`, or
 * `journal-in-use` when it already exists).
 */
export async function seedJournal(
  path: string,
  header: JournalHeader,
  entries: Iterable<readonly [number, SampleResult]>,
): Promise<void> {
  const none = {
    finished: new Map(),
    trials: new Map(),
    validBytes: 0,
    readBytes: 0,
    exists: false,
    warnings: [],
  };
  const writer = await JournalWriter.open(path, header, none);
  const withTrials = header.trials !== undefined && header.trials > 1;
  try {
    for (const [index, sample] of entries) {
      const trials = sample.trials;
      if (!withTrials || trials === undefined) {
        writer.append(index, sample);
        continue;
      }
      // A run with trials journals one line per trial: the sample's own fields with the trial's.
      const base: Record<string, unknown> = { ...sample };
      for (const key of TRIAL_KEYS) delete base[key];
      for (let t = 0; t < trials.length; t++) {
        writer.append(index, { ...base, ...trials[t] } as SampleResult, t);
      }
    }
  } finally {
    await writer.close();
  }
}
