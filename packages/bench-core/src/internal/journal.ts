import { closeSync, constants as fsConstants, openSync, writeSync } from "node:fs";
import { readFile, truncate } from "node:fs/promises";
import { dirname } from "node:path";
import { ConfigurationError } from "../errors.js";
import { parseSampleJson, sampleToJson } from "../results.js";
import type { SampleResult } from "../types.js";
import { makeDirectory } from "./atomic-write.js";
import { decodeUtf8, shortText } from "./text.js";

export const JOURNAL_FORMAT = "fastrag-bench-journal/1";

/** What must match between a journal and the run that resumes it. */
export interface JournalHeader {
  readonly name: string;
  readonly fingerprint: string;
  readonly size: number;
  readonly metrics: readonly string[];
  readonly shard: { index: number; count: number } | null;
}

/** Samples recovered from an existing journal, by dataset position. */
export interface RecoveredJournal {
  readonly finished: Map<number, SampleResult>;
  /** Bytes of the journal that hold complete lines; anything after is a torn write. */
  readonly validBytes: number;
  /** Bytes read: more than `validBytes` when the last line is torn. */
  readonly readBytes: number;
  readonly exists: boolean;
}

/**
 * Reads a checkpoint journal. A missing file is an empty journal. A torn last line (a kill during
 * the write) is dropped; any other malformed line is a ConfigurationError naming it.
 */
export async function readJournal(
  path: string,
  expected: JournalHeader,
  datasetSample?: (index: number) => { readonly id?: string; readonly question: string },
): Promise<RecoveredJournal> {
  let buf: Buffer;
  try {
    buf = await readFile(path);
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") {
      return { finished: new Map(), validBytes: 0, readBytes: 0, exists: false };
    }
    throw new ConfigurationError(
      `${path}: cannot read checkpoint journal: ${(error as Error).message}`,
      { kind: "unreadable-file", path, cause: error },
    );
  }
  // Validate the encoding up to the last newline: a torn tail may end inside a character.
  const lastNl = buf.lastIndexOf(0x0a);
  if (lastNl > 0) decodeUtf8(buf.subarray(0, lastNl), path);
  const finished = new Map<number, SampleResult>();
  let start = 0;
  let lineNo = 0;
  let validBytes = 0;
  let headerSeen = false;
  while (start < buf.length) {
    const nl = buf.indexOf(0x0a, start);
    const end = nl === -1 ? buf.length : nl;
    const isLast = nl === -1 || nl === buf.length - 1;
    lineNo++;
    let text = buf.toString("utf8", start, end);
    if (lineNo === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.endsWith("\r")) text = text.slice(0, -1);
    start = end + 1;
    if (text.trim() === "") {
      if (nl !== -1) validBytes = start;
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      // Only the very last line can be torn by a kill; a broken line in the middle is corruption.
      if (isLast) {
        if (!headerSeen) refuseUnlessTornHeader(text, path);
        break;
      }
      throw new ConfigurationError(
        `${path}:${lineNo}: checkpoint journal line is not valid JSON: ${(error as Error).message}`,
        { kind: "journal-unusable", path, line: lineNo, cause: error },
      );
    }
    // A complete JSON value without its newline is still a torn write: the newline comes last.
    if (nl === -1) {
      if (!headerSeen) refuseUnlessTornHeader(text, path);
      break;
    }
    if (!headerSeen) {
      checkHeader(value, expected, path);
      headerSeen = true;
    } else {
      const [index, sample] = parseEntry(value, expected, path, lineNo, datasetSample);
      finished.set(index, sample);
    }
    validBytes = start;
  }
  // Only a torn header (or nothing): the writer starts the journal afresh.
  if (!headerSeen) return { finished, validBytes: 0, readBytes: buf.length, exists: true };
  return { finished, validBytes, readBytes: buf.length, exists: true };
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
): [number, SampleResult] {
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
  return [index, sample];
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
 * its line is in the operating system's hands, so a SIGKILL the next instant cannot lose it.
 *
 * The file is always open in append mode, and each line is one write: two runs appending to one
 * journal at once (a resumed run beside a fresh one) interleave whole lines, never overwrite each
 * other's. A new journal is created exclusively, so two runs cannot both start it.
 */
export class JournalWriter {
  private fd: number | undefined;
  private failure: unknown;

  private constructor(private readonly path: string) {}

  /** Opens the journal for appending, writing the header when it is new and cutting a torn tail. */
  static async open(
    path: string,
    header: JournalHeader,
    recovered: RecoveredJournal,
  ): Promise<JournalWriter> {
    const writer = new JournalWriter(path);
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
        });
        writeSync(writer.fd, `${line}\n`);
      }
    } catch (error) {
      if (writer.fd !== undefined) closeSync(writer.fd);
      if (ConfigurationError.isInstance(error)) throw error;
      throw new ConfigurationError(
        `${path}: cannot write the checkpoint journal: ${(error as Error).message}`,
        { kind: "unwritable-file", path, cause: error },
      );
    }
    return writer;
  }

  append(index: number, sample: SampleResult): void {
    if (this.failure !== undefined || this.fd === undefined) return;
    try {
      writeSync(this.fd, `${JSON.stringify({ index, sample: sampleToJson(sample) })}\n`);
    } catch (error) {
      this.failure = error;
    }
  }

  /** Closes the file, and rethrows the first write failure. */
  async close(): Promise<void> {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    if (this.failure !== undefined) {
      throw new ConfigurationError(
        `${this.path}: could not write the checkpoint journal: ${(this.failure as Error).message}`,
        { kind: "unwritable-file", path: this.path, cause: this.failure },
      );
    }
  }
}
