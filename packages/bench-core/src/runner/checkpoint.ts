// The runner's side of a checkpoint journal: one run per journal in this process, resuming the
// samples a journal holds, and closing it without losing the result.
import { resolve as resolvePath } from "node:path";
import { ConfigurationError } from "../errors.js";
import { type JournalHeader, JournalWriter, readJournal } from "../internal/journal.js";
import type { SampleResult } from "../types.js";
import { errorMessage } from "./error-message.js";
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

/**
 * Reads the journal at `checkpoint` (refusing one of another run), puts the samples it finished
 * into `slots` (errored ones only without `retryErrored`), and opens it for appending.
 */
export async function resumeJournal(
  checkpoint: string,
  header: JournalHeader,
  questions: readonly string[],
  ids: readonly (string | undefined)[],
  retryErrored: boolean | undefined,
  slots: (SampleResult | undefined)[],
): Promise<JournalWriter> {
  const recovered = await readJournal(checkpoint, header, (i) => {
    const id = ids[i];
    return id === undefined
      ? { question: questions[i] as string }
      : { id, question: questions[i] as string };
  });
  for (const [index, sample] of recovered.finished) {
    if (retryErrored && sample.status === "errored") continue;
    slots[index] = sample;
  }
  return JournalWriter.open(checkpoint, header, recovered);
}

/**
 * Closes the journal. A journal that could not be written must not cost the finished result held
 * in memory: this warns, and the run returns (or aborts with) its result as usual.
 */
export async function closeJournal(journal: JournalWriter | undefined): Promise<void> {
  await journal?.close().catch((error: unknown) => {
    process.emitWarning(
      `${errorMessage(error)}; the run's result is complete, but a resume from this journal would re-run samples`,
      { code: "FASTRAG_BENCH_JOURNAL" },
    );
  });
}
