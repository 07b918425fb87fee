import { isUtf8 } from "node:buffer";
import { closeSync, constants as fsConstants, openSync } from "node:fs";
import { open, truncate } from "node:fs/promises";
import { dirname } from "node:path";
import { ConfigurationError } from "../errors.js";
import { parseSampleJson, sampleToJson } from "../results.js";
import type { SampleResult } from "../types.js";
import { makeDirectory, systemReason } from "./atomic-write.js";
import { shortText } from "./text.js";
import { type WriteSync, writeAllSync } from "./write-all.js";

export const JOURNAL_FORMAT = "fastrag-bench-journal/1";

/** What must match between a journal and the run that resumes it. */
export interface JournalHeader {
  readonly name: string;
  readonly fingerprint: string;
  readonly size: number;
  readonly metrics: readonly string[];
  readonly shard: { index: number; count: number } | null;
  /** Trials per sample (`trials`); 1 when absent. Written only when more than 1. */
  readonly trials?: number;
}

/** Samples recovered from an existing journal, by dataset position. */
export interface RecoveredJournal {
  readonly finished: Map<number, SampleResult>;
  /**
   * With trials: the finished trials of each sample, by dataset position (entry t is trial t's
   * record), from lines `{"index", "trial", "sample"}`. A sample with all its trials here is
   * finished; `finished` holds none of a run with trials.
   */
  readonly trials: Map<number, (SampleResult | undefined)[]>;
  /** Bytes of the journal that hold complete lines; anything after is a torn write. */
  readonly validBytes: number;
  /** Bytes read: more than `validBytes` when the last line is torn. */
  readonly readBytes: number;
  readonly exists: boolean;
  /**
   * One message per line that was dropped (a torn write, anywhere in the file), naming the line
   * and the sample it held: that sample runs again. Empty when nothing was lost.
   */
  readonly warnings: readonly string[];
}

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
      checkHeader(value, this.expected, this.path);
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

const TORN: unique symbol = Symbol("torn");
const BLANK: unique symbol = Symbol("blank");

/**
 * A line's JSON value; `BLANK` for a line of whitespace; `TORN` for one that is not valid UTF-8
 * or not valid JSON (a torn write can end inside a character).
 */
function parseLine(bytes: Buffer, lineNo: number): unknown {
  if (!isUtf8(bytes)) return TORN;
  let text = bytes.toString("utf8");
  if (lineNo === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.endsWith("\r")) text = text.slice(0, -1);
  if (text.trim() === "") return BLANK;
  try {
    return JSON.parse(text);
  } catch {
    return TORN;
  }
}

/** The index and id a torn entry line starts with, when its start survived. */
function describeTorn(bytes: Buffer): { index: number; id: string | undefined } | undefined {
  const head = bytes.subarray(0, 4096).toString("utf8");
  const m = /^\s*\{\s*"index"\s*:\s*(\d{1,15})\s*,/.exec(head);
  if (m === null) return undefined;
  const id = /"sample_id"\s*:\s*("(?:[^"\\]|\\.){0,200}")/.exec(head)?.[1];
  return { index: Number(m[1]), id };
}

/**
 * A journal's first line cut short by a kill is the start of its header, which the writer then
 * rewrites. Anything else there is some other file, which must not be overwritten.
 */
function refuseUnlessTornHeader(text: string, path: string): void {
  const lead = `{"journal":${JSON.stringify(JOURNAL_FORMAT)}`;
  const line = text.trimStart();
  if (lead.startsWith(line) || line.startsWith(lead)) return;
  throw new ConfigurationError(
    `${path}: not a fastrag bench checkpoint journal (its first line is not a journal header), so it is left as is; use another checkpoint path, or delete the file if it is an old journal`,
    { kind: "journal-unusable", path },
  );
}

function checkHeader(value: unknown, expected: JournalHeader, path: string): void {
  const h = value as Record<string, unknown> | null;
  if (typeof h !== "object" || h === null || h.journal !== JOURNAL_FORMAT) {
    throw new ConfigurationError(
      `${path}:1: not a fastrag bench checkpoint journal: expected a header with journal "${JOURNAL_FORMAT}"`,
      { kind: "journal-unusable", path, line: 1 },
    );
  }
  const problems: string[] = [];
  if (h.name !== expected.name)
    problems.push(`run name is "${String(h.name)}", this run is "${expected.name}"`);
  if (h.dataset_fingerprint !== expected.fingerprint || h.dataset_size !== expected.size) {
    problems.push(
      `dataset differs (journal ${String(h.dataset_fingerprint)} with ${String(h.dataset_size)} samples, this run ${expected.fingerprint} with ${expected.size})`,
    );
  }
  // Compared, and shown, as lists of names: metrics ["a, b"] are not metrics ["a", "b"].
  if (JSON.stringify(h.metrics) !== JSON.stringify(expected.metrics)) {
    const names = (list: readonly unknown[]) => list.map((m) => JSON.stringify(m)).join(", ");
    const metrics = Array.isArray(h.metrics) ? `[${names(h.metrics)}]` : String(h.metrics);
    problems.push(`metrics differ (journal ${metrics}, this run [${names(expected.metrics)}])`);
  }
  const trials = h.trials ?? 1;
  if (trials !== (expected.trials ?? 1)) {
    problems.push(
      `trials differ (journal ${JSON.stringify(trials)} per sample, this run ${expected.trials ?? 1})`,
    );
  }
  if (JSON.stringify(h.shard ?? null) !== JSON.stringify(expected.shard)) {
    problems.push(
      `shard differs (journal ${JSON.stringify(h.shard ?? null)}, this run ${JSON.stringify(expected.shard)})`,
    );
  }
  if (problems.length > 0) {
    throw new ConfigurationError(
      `${path}: checkpoint journal belongs to another run: ${problems.join("; ")}. Use another checkpoint path or delete this one`,
      { kind: "journal-unusable", path },
    );
  }
}

function parseEntry(
  value: unknown,
  expected: JournalHeader,
  path: string,
  lineNo: number,
  datasetSample?: (index: number) => { readonly id?: string; readonly question: string },
): [number, SampleResult, number | undefined] {
  const e = value as Record<string, unknown> | null;
  const index = e?.index;
  if (
    typeof e !== "object" ||
    e === null ||
    typeof index !== "number" ||
    !Number.isSafeInteger(index)
  ) {
    throw new ConfigurationError(
      `${path}:${lineNo}: expected a journal entry {"index", "sample"}, found ${JSON.stringify(value).slice(0, 60)}`,
      { kind: "journal-unusable", path, line: lineNo },
    );
  }
  if (index < 0 || index >= expected.size) {
    throw new ConfigurationError(
      `${path}:${lineNo}: sample index ${index} is outside the dataset (0..${expected.size - 1})`,
      { kind: "journal-unusable", path, line: lineNo },
    );
  }
  const { shard } = expected;
  if (shard !== null && index % shard.count !== shard.index) {
    throw new ConfigurationError(
      `${path}:${lineNo}: sample index ${index} is not in shard ${shard.index + 1} of ${shard.count}; the journal is damaged`,
      { kind: "journal-unusable", path, line: lineNo },
    );
  }
  // With trials every line is one trial's: {"index", "trial", "sample"}.
  const n = expected.trials ?? 1;
  const trial = e.trial;
  if (
    n > 1 &&
    !(typeof trial === "number" && Number.isSafeInteger(trial) && trial >= 0 && trial < n)
  ) {
    throw new ConfigurationError(
      `${path}:${lineNo}: expected a trial number 0..${n - 1} (the run has ${n} trials per sample), found ${JSON.stringify(trial)}; the journal is damaged`,
      { kind: "journal-unusable", path, line: lineNo },
    );
  }
  if (n === 1 && trial !== undefined) {
    throw new ConfigurationError(
      `${path}:${lineNo}: a line of one trial in a journal without trials; the journal is damaged`,
      { kind: "journal-unusable", path, line: lineNo },
    );
  }
  const sample = parseSampleJson(e.sample, path, `line ${lineNo}: sample`);
  // The header matched this dataset, so a line whose sample is not the dataset's sample at its
  // index was damaged (or edited): resuming from it would file one sample's scores under another.
  // Samples are told apart by id; by question only when they have none. (The runner records the
  // question and id read before the target's call, so a target that edits the sample in place
  // does not change them; the dataset in memory, though, is then no longer what was loaded.)
  const want = datasetSample?.(index);
  if (
    want !== undefined &&
    (want.id !== undefined ? sample.sampleId !== want.id : sample.question !== want.question)
  ) {
    throw new ConfigurationError(
      `${path}:${lineNo}: sample index ${index} is ${describeSample(sample.sampleId, sample.question)} in the journal but ${describeSample(want.id, want.question)} in the dataset; the journal is damaged`,
      { kind: "journal-unusable", path, line: lineNo },
    );
  }
  const names = Object.keys(sample.scores);
  const missing = expected.metrics.filter((m) => !Object.hasOwn(sample.scores, m));
  const extra = names.filter((m) => !expected.metrics.includes(m));
  if (missing.length > 0 || extra.length > 0) {
    throw new ConfigurationError(
      `${path}:${lineNo}: sample index ${index} has scores for [${names.join(", ")}], expected [${expected.metrics.join(", ")}]; the journal is damaged`,
      { kind: "journal-unusable", path, line: lineNo },
    );
  }
  return [index, sample, n > 1 ? (trial as number) : undefined];
}

function describeSample(id: unknown, question: unknown): string {
  // A dataset sample a target edited in place may hold anything: describe it, never throw.
  const q =
    typeof question === "string"
      ? JSON.stringify(shortText(question, 40))
      : `a question that is a ${question === null ? "null" : typeof question}, not a string`;
  if (id === undefined) return typeof question === "string" ? `the question ${q}` : q;
  const i = typeof id === "string" ? JSON.stringify(id) : `a ${id === null ? "null" : typeof id}`;
  return `id ${i} (${q})`;
}

/**
 * Appends finished samples to a journal, one line each, in the order they finish.
 *
 * Each line is written synchronously when its sample finishes: once a sample counts as finished,
 * its line is in the operating system's hands, so a SIGKILL the next instant cannot lose it. A
 * short write is followed by another until the whole line is written; the system's error on one
 * (a full disk, a file size limit) makes {@link JournalWriter.append} throw, and every later
 * append does nothing.
 *
 * The file is always open in append mode, and each line is one write: two runs appending to one
 * journal at once (a resumed run beside a fresh one) interleave whole lines, never overwrite each
 * other's. A new journal is created exclusively, so two runs cannot both start it.
 */
export class JournalWriter {
  private fd: number | undefined;
  private failure: unknown;
  /** Lines of finished samples this writer wrote whole. */
  private written = 0;

  private constructor(
    private readonly path: string,
    private readonly write: WriteSync | undefined,
  ) {}

  /**
   * Opens the journal for appending, writing the header when it is new and cutting a torn tail.
   * `write` replaces the system's write call (tests hand in one that returns short counts).
   */
  static async open(
    path: string,
    header: JournalHeader,
    recovered: RecoveredJournal,
    write?: WriteSync,
  ): Promise<JournalWriter> {
    const writer = new JournalWriter(path, write);
    const resume = recovered.exists && recovered.validBytes > 0;
    const { O_APPEND, O_CREAT, O_EXCL, O_TRUNC, O_WRONLY } = fsConstants;
    try {
      await makeDirectory(dirname(path));
      // Cut only a torn tail: lines another run appended since the read are left alone.
      if (resume && recovered.readBytes > recovered.validBytes) {
        await truncate(path, recovered.validBytes);
      }
      const flags = resume
        ? O_WRONLY | O_APPEND
        : recovered.exists
          ? O_WRONLY | O_CREAT | O_TRUNC | O_APPEND // a torn header only: start it again
          : O_WRONLY | O_CREAT | O_EXCL | O_APPEND;
      try {
        writer.fd = openSync(path, flags);
      } catch (error) {
        if ((error as { code?: unknown }).code === "EEXIST") {
          throw new ConfigurationError(
            `${path}: another run created this checkpoint journal while this one was starting; two runs must not start one journal at once (give each its own checkpoint path, or resume once the other has begun)`,
            { kind: "journal-in-use", path, cause: error },
          );
        }
        throw error;
      }
      if (!resume) {
        const line = JSON.stringify({
          journal: JOURNAL_FORMAT,
          name: header.name,
          dataset_fingerprint: header.fingerprint,
          dataset_size: header.size,
          metrics: header.metrics,
          shard: header.shard,
          ...((header.trials ?? 1) > 1 ? { trials: header.trials } : {}),
        });
        writeAllSync(writer.fd, Buffer.from(`${line}\n`, "utf8"), write);
      }
    } catch (error) {
      if (writer.fd !== undefined) closeSync(writer.fd);
      if (ConfigurationError.isInstance(error)) throw error;
      throw new ConfigurationError(
        `${path}: cannot write the checkpoint journal: ${systemReason(error)}; no sample has run`,
        { kind: "unwritable-file", path, cause: error },
      );
    }
    return writer;
  }

  /** Lines of finished samples written whole by this writer (a resume's earlier ones not counted). */
  get linesWritten(): number {
    return this.written;
  }

  /** The first write failure, when one happened. */
  get failed(): unknown {
    return this.failure;
  }

  /**
   * Appends one finished sample's line, whole.
   *
   * @throws {ConfigurationError} when the line cannot be written whole (its `cause` is the
   * system's error); later calls do nothing. What reached the file of that line is a torn line,
   * which a resume drops.
   */
  append(index: number, sample: SampleResult, trial?: number): void {
    if (this.failure !== undefined || this.fd === undefined) return;
    const entry =
      trial === undefined
        ? { index, sample: sampleToJson(sample) }
        : { index, trial, sample: sampleToJson(sample) };
    const line = Buffer.from(`${JSON.stringify(entry)}\n`, "utf8");
    try {
      writeAllSync(this.fd, line, this.write);
      this.written++;
    } catch (error) {
      this.failure = error;
      throw new ConfigurationError(
        `${this.path}: cannot write the checkpoint journal: ${systemReason(error)}`,
        { kind: "unwritable-file", path: this.path, cause: error },
      );
    }
  }

  /** Closes the file. */
  async close(): Promise<void> {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
