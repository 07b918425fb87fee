import { open } from "node:fs/promises";
import { ConfigurationError } from "../errors.js";
import type { SampleResult } from "../types.js";

import type { JournalHeader, RecoveredJournal } from "./journal.js";
import {
  BLANK,
  describeTorn,
  expectHeader,
  parseEntry,
  parseLine,
  refuseUnlessTornHeader,
  TORN,
} from "./journal-lines.js";

/** Limits of {@link readJournal}; tests make them small. @internal */
export interface JournalReadLimits {
  /** Bytes read at a time. */
  readonly chunkBytes: number;
  /**
   * A line longer than this is no journal line (a sample's line is kilobytes; V8 cannot hold a
   * string of 512 MiB): a run of NUL bytes a crash left, or another file's data. It is skipped
   * without being held in memory, and dropped like a torn line.
   */
  readonly maxLineBytes: number;
}

const DEFAULT_LIMITS: JournalReadLimits = { chunkBytes: 1 << 20, maxLineBytes: 256 << 20 };

/** How every entry line the writer makes starts; a torn line may run into the next one. */
const ENTRY_START = Buffer.from('{"index":');

/**
 * Reads a checkpoint journal, streamed: a journal of any size (past 2 GiB, which `readFile`
 * refuses) is read a chunk at a time, and only one line is held at once.
 *
 * A missing file is an empty journal. A torn line (a write cut short by a kill, a full disk or a
 * file size limit), at the end or anywhere else, is dropped with a warning naming its sample,
 * which then runs again; when a complete entry follows a torn one on the same line (an append
 * after a short write), that entry is kept. A line that is complete JSON but not this run's (a
 * header of another run, a sample that is not the dataset's at its index) is a
 * ConfigurationError naming it: that journal is another run's or was edited.
 */
export async function readJournal(
  path: string,
  expected: JournalHeader,
  datasetSample?: (index: number) => { readonly id?: string; readonly question: string },
  limits: JournalReadLimits = DEFAULT_LIMITS,
): Promise<RecoveredJournal> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, "r");
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") {
      return {
        finished: new Map(),
        trials: new Map(),
        validBytes: 0,
        readBytes: 0,
        exists: false,
        warnings: [],
      };
    }
    throw new ConfigurationError(
      `${path}: cannot read checkpoint journal: ${(error as Error).message}`,
      { kind: "unreadable-file", path, cause: error },
    );
  }
  const state = new JournalReadState(path, expected, datasetSample);
  let readBytes = 0;
  try {
    // The line being gathered: its pieces, their length, and whether it outgrew the limit.
    let pieces: Buffer[] = [];
    let lineBytes = 0;
    let oversize = false;
    for (;;) {
      const chunk = Buffer.allocUnsafe(limits.chunkBytes);
      let n: number;
      try {
        n = (await handle.read(chunk, 0, chunk.length, readBytes)).bytesRead;
      } catch (error) {
        throw new ConfigurationError(
          `${path}: cannot read checkpoint journal at byte ${readBytes}: ${(error as Error).message}`,
          { kind: "unreadable-file", path, cause: error },
        );
      }
      if (n === 0) break;
      readBytes += n;
      let from = 0;
      while (from < n) {
        const nl = chunk.indexOf(0x0a, from);
        const end = nl === -1 || nl >= n ? n : nl;
        if (!oversize) {
          if (lineBytes + (end - from) > limits.maxLineBytes) {
            oversize = true;
            pieces = [];
          } else if (end > from) pieces.push(chunk.subarray(from, end));
        }
        lineBytes += end - from;
        if (end === n) break;
        const line = oversize
          ? undefined
          : pieces.length === 1
            ? (pieces[0] as Buffer)
            : Buffer.concat(pieces, lineBytes);
        state.line(line, lineBytes, readBytes - n + nl + 1);
        pieces = [];
        lineBytes = 0;
        oversize = false;
        from = nl + 1;
      }
    }
    if (lineBytes > 0) {
      state.tail(oversize ? undefined : Buffer.concat(pieces, lineBytes), lineBytes);
    }
  } finally {
    await handle.close().catch(() => {});
  }
  return state.finish(readBytes);
}

/** What {@link readJournal} has learned so far, line by line. */
class JournalReadState {
  readonly finished = new Map<number, SampleResult>();
  readonly trials = new Map<number, (SampleResult | undefined)[]>();
  readonly warnings: string[] = [];
  /** Torn lines whose sample is known: warned about at the end, unless a later line holds it. */
  private readonly lost: { index: number; message: string }[] = [];
  private lineNo = 0;
  private validBytes = 0;
  private headerSeen = false;

  constructor(
    private readonly path: string,
    private readonly expected: JournalHeader,
    private readonly datasetSample:
      | ((index: number) => { readonly id?: string; readonly question: string })
      | undefined,
  ) {}

  /**
   * One complete line (its newline read), `undefined` when it was too long to hold; `end` is the
   * file offset just past its newline.
   */
  line(bytes: Buffer | undefined, length: number, end: number): void {
    this.lineNo++;
    const lineNo = this.lineNo;
    const value = bytes === undefined ? TORN : parseLine(bytes, lineNo);
    if (value === BLANK) {
      this.validBytes = end;
      return;
    }
    if (!this.headerSeen) {
      if (value === TORN) {
        // Only the last line can be a torn header; a complete line that is not one is some
        // other file's, or a damaged journal's, and is not overwritten.
        throw new ConfigurationError(
          `${this.path}:1: not a fastrag bench checkpoint journal (its first line is not a journal header), so it is left as is; use another checkpoint path, or delete the file if it is an old journal`,
          { kind: "journal-unusable", path: this.path, line: 1 },
        );
      }
      expectHeader(value, this.expected, this.path);
      this.headerSeen = true;
      this.validBytes = end;
      return;
    }
    this.validBytes = end;
    if (value !== TORN) {
      this.keep(parseEntry(value, this.expected, this.path, lineNo, this.datasetSample));
      return;
    }
    // A torn line that another append ran into: the last entry start on it may be whole.
    if (bytes !== undefined) {
      const at = bytes.lastIndexOf(ENTRY_START);
      if (at > 0) {
        const rest = parseLine(bytes.subarray(at), lineNo);
        if (rest !== TORN && rest !== BLANK) {
          try {
            this.keep(parseEntry(rest, this.expected, this.path, lineNo, this.datasetSample));
            this.drop(
              bytes.subarray(0, at),
              at,
              lineNo,
              "the start of a line, cut short by a failed write, that the next line ran into",
            );
            return;
          } catch {
            // Not a whole entry after all: the line is dropped as a whole.
          }
        }
      }
    }
    this.drop(bytes, length, lineNo, "a line cut short by a failed or interrupted write");
  }

  /** Keeps a parsed entry: a finished sample, or one finished trial of a sample. */
  private keep([index, sample, trial]: [number, SampleResult, number | undefined]): void {
    if (trial === undefined) {
      this.finished.set(index, sample);
      return;
    }
    let list = this.trials.get(index);
    if (list === undefined) {
      list = new Array(this.expected.trials ?? 1);
      this.trials.set(index, list);
    }
    list[trial] = sample;
  }

  /** The bytes after the last newline: a write that never finished (a newline comes last). */
  tail(bytes: Buffer | undefined, length: number): void {
    this.lineNo++;
    if (!this.headerSeen) {
      // A header cut short by a kill is rewritten; anything else is some other file's.
      refuseUnlessTornHeader(bytes === undefined ? "\u0000" : bytes.toString("utf8"), this.path);
      return;
    }
    this.drop(bytes, length, this.lineNo, "the last line, cut short by an interrupted write");
  }

  private drop(bytes: Buffer | undefined, length: number, lineNo: number, what: string): void {
    const held = bytes === undefined ? undefined : describeTorn(bytes);
    const size = `${length.toLocaleString("en-US")} bytes`;
    if (held === undefined) {
      const why =
        bytes === undefined
          ? `a line of ${size}, too long for a journal line (a run of NUL bytes a crash left, or another file's data)`
          : `${what} (${size})`;
      this.warnings.push(`${this.path}:${lineNo}: dropped ${why}; no sample could be read from it`);
      return;
    }
    // The dataset names the sample when the tear took its id with it.
    const known =
      held.index < this.expected.size ? this.datasetSample?.(held.index)?.id : undefined;
    const id = known === undefined ? held.id : JSON.stringify(known);
    this.lost.push({
      index: held.index,
      message: `${this.path}:${lineNo}: dropped ${what} (${size}); it held sample index ${held.index}${id === undefined ? "" : ` (id ${id})`}, which runs again`,
    });
  }

  finish(readBytes: number): RecoveredJournal {
    for (const { index, message } of this.lost) {
      // A later line holds that sample (it was run again after the tear): nothing is lost.
      if (!this.finished.has(index) && !this.trials.has(index)) this.warnings.push(message);
    }
    // Only a torn header (or nothing): the writer starts the journal afresh.
    const validBytes = this.headerSeen ? this.validBytes : 0;
    return {
      finished: this.finished,
      trials: this.trials,
      validBytes,
      readBytes,
      exists: true,
      warnings: this.warnings,
    };
  }
}
