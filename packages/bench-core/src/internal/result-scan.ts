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
    let buf = takeBuffer();
    let len = 0;
    let eof = false;
    let pos = 0;
    /** Bytes before this index are known to be valid UTF-8. */
    let checked = 0;
    let lineNo = 0;
    let headerText = "";
    let state: "header" | "samples" | "done" = "header";
    let scan: LineScanner | undefined;
    let header: H | undefined;
    let lastHadComma = true;
    let count = 0;
    try {
      for (;;) {
        // A complete line is [pos, nl). Refill when no newline is left in the buffer.
        let nl = buf.indexOf(0x0a, pos);
        if (nl === -1 || nl >= len) {
          if (!eof) {
            if (pos > 0) {
              buf.copyWithin(0, pos, len);
              len -= pos;
              checked -= pos;
              pos = 0;
            }
            if (len === buf.length) {
              const bigger = Buffer.allocUnsafe(buf.length * 2);
              buf.copy(bigger, 0, 0, len);
              giveBuffer(buf);
              buf = bigger;
            }
            const bytesRead = readSync(fd, buf, len, buf.length - len, null);
            if (bytesRead === 0) eof = true;
            len += bytesRead;
            // Newlines never fall inside a UTF-8 sequence: check up to the last one (all at EOF).
            const upTo = eof ? len : buf.lastIndexOf(0x0a, len - 1) + 1;
            if (upTo > checked) {
              if (!isUtf8(buf.subarray(checked, upTo))) return undefined;
              checked = upTo;
            }
            continue;
          }
          // EOF: what is left is the last (unterminated) line.
          if (pos >= len) break;
          nl = len;
        }
        lineNo++;
        if (state === "header") {
          const line = buf.toString("utf8", pos, nl);
          pos = nl + 1;
          if (line === SAMPLES_LINE) {
            // The header is the file's text up to here, its last comma replaced by the brace
            // that closes the object: exactly what a full parse would read, minus the samples.
            const trimmed = headerText.trimEnd();
            if (!trimmed.endsWith(",")) return undefined;
            let data: unknown;
            try {
              data = JSON.parse(`${trimmed.slice(0, -1)}}`);
            } catch {
              return undefined;
            }
            const parsed = parsers.header(data);
            header = parsed.header;
            // Columns sized for the count the header announces, but never past what the file
            // can hold (a sample line takes over 40 bytes); grown by doubling when short.
            const capacity = Math.min(parsed.expected ?? Number.POSITIVE_INFINITY, size / 40);
            scan = new LineScanner(parsed.metrics, parsers, capacity);
            state = "samples";
            continue;
          }
          headerText += `${line}\n`;
          if (lineNo === 1 && line !== "{") return undefined;
          if (headerText.length > MAX_HEADER) return undefined;
          continue;
        }
        if (state === "done") {
          for (let i = pos; i < nl; i++) {
            const c = buf[i] as number;
            if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return undefined;
          }
          pos = nl + 1;
          continue;
        }
        const s = scan as LineScanner;
        if (nl - pos === 2 && buf[pos] === 0x5d && buf[pos + 1] === 0x7d) {
          // `]}`: the samples array and the file close. The last sample has no comma.
          if (count > 0 && lastHadComma) return undefined;
          state = "done";
          pos = nl + 1;
          continue;
        }
        if (!lastHadComma) return undefined;
        let end = nl;
        lastHadComma = buf[end - 1] === 0x2c;
        if (lastHadComma) end--;
        if (end <= pos || buf[pos] !== 0x7b || buf[end - 1] !== 0x7d) return undefined;
        if (!s.line(buf, pos, end, lineNo)) return undefined;
        count++;
        pos = nl + 1;
      }
    } finally {
      giveBuffer(buf);
    }
    // Not closed (truncated, or another layout): the full parse says what is wrong.
    if (state !== "done") return undefined;
    const s = scan as LineScanner;
    s.shareIds();
    return {
      header: header as H,
      sampleIds: s.ids,
      questionHashes: s.questionHashes(),
      columns: s.columns(),
      statuses: s.statuses,
      trials: s.trials(),
      size,
      mtimeMs,
    };
  } finally {
    closeSync(fd);
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
