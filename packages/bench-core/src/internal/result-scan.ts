// The lazy result reader: a result file in the layout `save` writes, read through one reused
// buffer into columns (ids, question hashes, scores, and with trials their counts and
// `trial_std`). The sample lines' byte loops are in scan-line.ts.
import { isUtf8 } from "node:buffer";
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { LineScanner, type ScanParsers } from "./scan-line.js";

export type { ScanParsers } from "./scan-line.js";

import type { ScannedTrials } from "./scan-trials.js";

/**
 * What a lazy load keeps of a result file: per sample its id and the score of each metric, in
 * columns, plus the file's size and modification time so that the full records can be read again
 * later and checked to come from the same file.
 */
export interface ScannedSamples<H> {
  readonly header: H;
  /** Per sample, in file order: its id, or undefined when it has none. */
  readonly sampleIds: (string | undefined)[];
  /**
   * Per sample, two 32-bit hashes of its question (entries 2i and 2i + 1; see
   * question-hash.ts): enough for pairing to check that two runs ask the same questions
   * without reading their records.
   */
  readonly questionHashes: Int32Array;
  /** metric → per-sample score; NaN where the sample has no number (null, missing, errored). */
  readonly columns: Map<string, Float64Array>;
  /** How many samples have each status, for the check against the header's counts. */
  readonly statuses: { successful: number; errored: number; incomplete: number };
  /** With trials: per sample its trial count, per metric its `trial_std`; else undefined. */
  readonly trials: ScannedTrials | undefined;
  readonly size: number;
  readonly mtimeMs: number;
}

const CHUNK = 1 << 20;
const SAMPLES_LINE = ' "samples": [';
const MAX_HEADER = 64 * 1024 * 1024;

/**
 * Reads a result file in the layout `BenchmarkResult.save` writes (an indented header, then one
 * sample per line) through one reused buffer, keeping only sample ids and score columns (and with
 * trials, their counts and `trial_std`); why one buffer: docs/decisions/core-hot-paths.md.
 *
 * It checks what a full load checks: the file is UTF-8; the header, as `parsers.header` checks
 * it; every sample line is one JSON object whose fields have the types a sample's fields must
 * have, and whose trials (if any) give its status and scores. A line it cannot read on its fast path (escapes in an id, an unknown score key, another
 * key order, a key given twice, whitespace) is parsed with `JSON.parse` and `parsers.sample`.
 *
 * @returns undefined when the file is not in that layout, or a line is not one JSON value (a
 * sample over two lines, two on one line, a truncated file): the caller then parses the file in
 * full, which reads any valid layout and words the error of an invalid file.
 * @throws {ConfigurationError} for a sample line that is valid JSON but not a valid sample.
 */
export function scanResultFile<H>(
  path: string,
  parsers: ScanParsers<H>,
): ScannedSamples<H> | undefined {
  // Synchronous reads (docs/decisions/core-hot-paths.md).
  const fd = openSync(path, "r");
  try {
    const { size, mtimeMs } = fstatSync(fd);
    const lines = new FileLines(fd);
    try {
      const opened = scanHeader(lines, parsers, size);
      if (opened === undefined) return undefined;
      const scan = opened.scan;
      if (!scanSamples(lines, scan) || !scanTail(lines)) return undefined;
      scan.shareIds();
      return {
        header: opened.header,
        sampleIds: scan.ids,
        questionHashes: scan.questionHashes(),
        columns: scan.columns(),
        statuses: scan.statuses,
        trials: scan.trials(),
        size,
        mtimeMs,
      };
    } finally {
      lines.release();
    }
  } finally {
    closeSync(fd);
  }
}

/** Marks of {@link FileLines.next}: the file has no line left, or is not UTF-8. */
const END = -1;
const NOT_UTF8 = -2;

/**
 * A file's lines, read through the reused buffer: line k is `buf[pos, end)` for the `end` that
 * {@link FileLines.next} returns, and every byte handed out was checked to be UTF-8.
 */
class FileLines {
  buf: Buffer = takeBuffer();
  pos = 0;
  /** 1-based number of the line `next` last returned. */
  lineNo = 0;
  #len = 0;
  #eof = false;
  /** Bytes before this index are known to be valid UTF-8. */
  #checked = 0;

  constructor(private readonly fd: number) {}

  /** The end of the next line (its newline, or the file's end), or END, or NOT_UTF8. */
  next(): number {
    for (;;) {
      // A complete line is [pos, nl). Refill when no newline is left in the buffer.
      const nl = this.buf.indexOf(0x0a, this.pos);
      if (nl !== -1 && nl < this.#len) {
        this.lineNo++;
        return nl;
      }
      if (this.#eof) {
        // What is left is the last (unterminated) line.
        if (this.pos >= this.#len) return END;
        this.lineNo++;
        return this.#len;
      }
      if (!this.#refill()) return NOT_UTF8;
    }
  }

  /** Moves past the line that ends at `end`. */
  skip(end: number): void {
    this.pos = end + 1;
  }

  release(): void {
    giveBuffer(this.buf);
  }

  /** Reads more of the file behind what is left; false when the new bytes are not UTF-8. */
  #refill(): boolean {
    let buf = this.buf;
    if (this.pos > 0) {
      buf.copyWithin(0, this.pos, this.#len);
      this.#len -= this.pos;
      this.#checked -= this.pos;
      this.pos = 0;
    }
    if (this.#len === buf.length) {
      const bigger = Buffer.allocUnsafe(buf.length * 2);
      buf.copy(bigger, 0, 0, this.#len);
      giveBuffer(buf);
      buf = bigger;
      this.buf = bigger;
    }
    const bytesRead = readSync(this.fd, buf, this.#len, buf.length - this.#len, null);
    if (bytesRead === 0) this.#eof = true;
    this.#len += bytesRead;
    // Newlines never fall inside a UTF-8 sequence: check up to the last one (all at EOF).
    const upTo = this.#eof ? this.#len : buf.lastIndexOf(0x0a, this.#len - 1) + 1;
    if (upTo > this.#checked) {
      if (!isUtf8(buf.subarray(this.#checked, upTo))) return false;
      this.#checked = upTo;
    }
    return true;
  }
}

/**
 * The header: the lines up to `"samples": [`, read as the JSON object they open (its last comma
 * replaced by the brace that closes it: exactly what a full parse would read, minus the samples)
 * and checked by `parsers.header`; and a line scanner for the samples. Undefined when the file is
 * not in `save`'s layout.
 */
function scanHeader<H>(
  lines: FileLines,
  parsers: ScanParsers<H>,
  size: number,
): { header: H; scan: LineScanner } | undefined {
  let headerText = "";
  for (;;) {
    const nl = lines.next();
    if (nl < 0) return undefined;
    const line = lines.buf.toString("utf8", lines.pos, nl);
    lines.skip(nl);
    if (line === SAMPLES_LINE) break;
    headerText += `${line}\n`;
    if (lines.lineNo === 1 && line !== "{") return undefined;
    if (headerText.length > MAX_HEADER) return undefined;
  }
  const trimmed = headerText.trimEnd();
  if (!trimmed.endsWith(",")) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(`${trimmed.slice(0, -1)}}`);
  } catch {
    return undefined;
  }
  const parsed = parsers.header(data);
  // Columns sized for the count the header announces, but never past what the file can hold (a
  // sample line takes over 40 bytes); grown by doubling when short.
  const capacity = Math.min(parsed.expected ?? Number.POSITIVE_INFINITY, size / 40);
  return { header: parsed.header, scan: new LineScanner(parsed.metrics, parsers, capacity) };
}

/**
 * The sample lines, one JSON object each, every one but the last ending in a comma, up to the
 * `]}` that closes the samples and the file. False when the file is not in that layout.
 */
function scanSamples(lines: FileLines, scan: LineScanner): boolean {
  let lastHadComma = true;
  let count = 0;
  for (;;) {
    const nl = lines.next();
    if (nl < 0) return false;
    const { buf, pos } = lines;
    if (nl - pos === 2 && buf[pos] === 0x5d && buf[pos + 1] === 0x7d) {
      lines.skip(nl);
      // The last sample has no comma.
      return !(count > 0 && lastHadComma);
    }
    if (!lastHadComma) return false;
    let end = nl;
    lastHadComma = buf[end - 1] === 0x2c;
    if (lastHadComma) end--;
    if (end <= pos || buf[pos] !== 0x7b || buf[end - 1] !== 0x7d) return false;
    if (!scan.line(buf, pos, end, lines.lineNo)) return false;
    count++;
    lines.skip(nl);
  }
}

/** After `]}`, only blank lines (spaces, tabs, carriage returns); false otherwise. */
function scanTail(lines: FileLines): boolean {
  for (;;) {
    const nl = lines.next();
    if (nl === END) return true;
    if (nl === NOT_UTF8) return false;
    for (let i = lines.pos; i < nl; i++) {
      const c = lines.buf[i] as number;
      if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return false;
    }
    lines.skip(nl);
  }
}

// One reading buffer reused across loads: loading 100 files allocates 1 MB, not 100 × the file.
let spare: Buffer | undefined;
function takeBuffer(): Buffer {
  const b = spare ?? Buffer.allocUnsafe(CHUNK);
  spare = undefined;
  return b;
}
function giveBuffer(b: Buffer): void {
  if (b.length === CHUNK) spare = b;
}
