// Reading a result: from a file (whole, streamed past 256 MB, or lazily: ids and scores now,
// records on first use), from text, or from a parsed object.
import { createReadStream, readFileSync, statSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { createInterface } from "node:readline";
import { ConfigurationError } from "../errors.js";
import { type ScannedSamples, scanResultFile } from "../internal/result-scan.js";
import { decodeUtf8 } from "../internal/text.js";
import { expectArray } from "../internal/validate.js";
import type { SampleResult, StatusCounts } from "../types.js";
import { expectStatusCounts, expectSummary, scoreColumnOfSamples } from "./consistency.js";
import { parseHeader } from "./decode-header.js";
import { parseSampleJson } from "./decode-sample.js";
import type { BenchmarkResultInit, LoadResultOptions } from "./result-init.js";
import { countStatuses } from "./summarize-samples.js";
import { expectResultTrials, expectTrialCount, expectTrialStd } from "./trials.js";

/** Past this size a file is streamed line by line (a single string gets close to V8's limit). */
const STREAM_PAST = 256 * 1024 * 1024;

type Header = Omit<BenchmarkResultInit, "samples">;

/** A file read lazily: its header, ids, question hashes and score columns; its records later. */
export interface LazyResult {
  readonly header: Header;
  readonly sampleIds: (string | undefined)[];
  readonly questionHashes: Int32Array;
  readonly columns: Map<string, Float64Array>;
  /** Where the records are, for {@link readLazySamples}. */
  readonly samples: LazySamples;
}

/** What {@link loadResult} read: a whole result's init, or a lazily read one. */
export type LoadedResult =
  | { readonly init: BenchmarkResultInit; readonly lazy?: undefined }
  | { readonly init?: undefined; readonly lazy: LazyResult };

/** See `BenchmarkResult.load`. */
export async function loadResult(
  path: string,
  options: LoadResultOptions = {},
): Promise<LoadedResult> {
  const size = await fileSize(path);
  // A lazy load reads the records again later in one piece: past STREAM_PAST that is the
  // streaming reader's job, so such files are read in full now.
  if (options?.lazy === true && size <= STREAM_PAST) {
    const lazy = scanLazily(path);
    if (lazy !== undefined) return { lazy };
  }
  if (size > STREAM_PAST) {
    const streamed = await loadStreaming(path);
    if (streamed !== undefined) return { init: streamed };
  }
  let text: string;
  try {
    text = decodeUtf8(await readFile(path), path);
  } catch (error) {
    if (ConfigurationError.isInstance(error)) throw error;
    throw unreadable(path, "cannot read result file", error);
  }
  return { init: parseResult(text, path) };
}

/** The file's size. @throws {ConfigurationError} of kind `unreadable-file` when it has none. */
async function fileSize(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch (error) {
    throw unreadable(path, "cannot read result file", error);
  }
}

/** The error for a file the system would not read: kind `unreadable-file`, its `path`. */
function unreadable(path: string, what: string, error: unknown): ConfigurationError {
  return new ConfigurationError(`${path}: ${what} (${describeIoError(error)})`, {
    kind: "unreadable-file",
    path,
    cause: error,
  });
}

/**
 * The lazy read of a file in the layout `save` writes, every field checked as a whole load checks
 * it; undefined when the file is in another layout (the caller reads it whole).
 */
function scanLazily(path: string): LazyResult | undefined {
  let scanned: ScannedSamples<Header> | undefined;
  try {
    scanned = scanResultFile(path, {
      header: (data) => {
        const header = parseHeader(data, path);
        const st = header.status as StatusCounts;
        return {
          header,
          metrics: Object.keys(header.higherIsBetter),
          expected: st.successful + st.errored + st.incomplete,
        };
      },
      sample: (data, where) => {
        const s = parseSampleJson(data, path, where);
        return {
          sampleId: s.sampleId,
          question: s.question,
          status: s.status,
          scores: s.scores,
          ...(s.trials !== undefined ? { trials: s.trials } : {}),
        };
      },
    });
  } catch (error) {
    if (ConfigurationError.isInstance(error)) throw error;
    throw unreadable(path, "cannot read result file", error);
  }
  if (scanned === undefined) return undefined;
  const { header, columns, sampleIds } = scanned;
  expectStatusCounts(header.status as StatusCounts, scanned.statuses, path);
  expectSummary(
    header.summary ?? {},
    Object.keys(header.higherIsBetter),
    (m) => columns.get(m) ?? new Float64Array(sampleIds.length).fill(Number.NaN),
    path,
  );
  expectScannedTrials(scanned, path);
  return {
    header,
    sampleIds,
    questionHashes: scanned.questionHashes,
    columns,
    samples: { path, count: sampleIds.length, size: scanned.size, mtimeMs: scanned.mtimeMs },
  };
}

/**
 * A lazily read file's trials must agree with its header, as `expectResultTrials` requires of a
 * whole one (each sample's trials were checked against the sample as it was read).
 */
function expectScannedTrials(scanned: ScannedSamples<Header>, path: string): void {
  const trials = scanned.header.trials ?? 1;
  const counts = scanned.trials?.counts;
  if (trials === 1 && counts === undefined) return;
  for (let i = 0; i < scanned.sampleIds.length; i++) {
    const held = counts === undefined || (counts[i] as number) < 0 ? undefined : counts[i];
    expectTrialCount(trials, i, held, path);
  }
  if (trials === 1) return;
  const std = scanned.trials?.std;
  expectTrialStd(scanned.header.summary ?? {}, (m) => std?.get(m) ?? null, path);
}

/** See `BenchmarkResult.parse`: the init of the result the text holds. */
export function parseResult(text: string, source = "<result>"): BenchmarkResultInit {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    const problem = jsonSyntaxProblem(text, error);
    throw new ConfigurationError(`${source}: ${problem.text}`, {
      kind: "invalid-input",
      path: source,
      ...(problem.line !== undefined ? { line: problem.line, column: problem.column } : {}),
      cause: error,
    });
  }
  return resultFromJson(data, source);
}

/** See `BenchmarkResult.fromJSON`: the init of the result `data` holds. */
export function resultFromJson(data: unknown, source = "<result>"): BenchmarkResultInit {
  const header = parseHeader(data, source);
  const rawSamples = expectArray((data as Record<string, unknown>).samples, source, "samples");
  const samples: SampleResult[] = new Array(rawSamples.length);
  for (let i = 0; i < rawSamples.length; i++) {
    samples[i] = parseSampleJson(rawSamples[i], source, `samples[${i}]`);
  }
  expectStatusCounts(header.status as StatusCounts, countStatuses(samples), source);
  expectSummary(
    header.summary ?? {},
    Object.keys(header.higherIsBetter),
    (m) => scoreColumnOfSamples(samples, m),
    source,
  );
  expectResultTrials(header.trials ?? 1, samples, header.summary ?? {}, source);
  return { ...header, samples };
}

/** Where the records of a lazily loaded result are, and what the file looked like then. */
export interface LazySamples {
  readonly path: string;
  readonly count: number;
  readonly size: number;
  readonly mtimeMs: number;
}

/**
 * The records of a lazily loaded result, read from its file.
 *
 * @throws {ConfigurationError} when the file changed since the load, is gone, or holds a bad sample.
 */
export function readLazySamples(lazy: LazySamples): readonly SampleResult[] {
  const { path } = lazy;
  const what = "cannot read the samples of a result loaded with { lazy: true }";
  let bytes: Buffer;
  try {
    const st = statSync(path);
    if (st.size !== lazy.size || st.mtimeMs !== lazy.mtimeMs) {
      throw new ConfigurationError(
        `${path}: the file changed after it was loaded with { lazy: true }, so its samples can no longer be read; load it again`,
        { kind: "invalid-input", path },
      );
    }
    bytes = readFileSync(path);
  } catch (error) {
    if (ConfigurationError.isInstance(error)) throw error;
    throw unreadable(path, what, error);
  }
  let samples: readonly SampleResult[];
  try {
    samples = parseResult(decodeUtf8(bytes, path), path).samples;
  } catch (error) {
    if (ConfigurationError.isInstance(error)) throw error;
    // Not the system's refusal but the text's (a string past V8's limit, say).
    throw new ConfigurationError(`${path}: ${what} (${(error as Error).message})`, {
      kind: "invalid-input",
      path,
      cause: error,
    });
  }
  if (samples.length !== lazy.count) {
    throw new ConfigurationError(
      `${path}: the file changed after it was loaded with { lazy: true } (${lazy.count} samples then, ${samples.length} now); load it again`,
      { kind: "invalid-input", path },
    );
  }
  return samples;
}

/**
 * What is wrong with a text that JSON.parse refused: where (line and column, when the engine's
 * message gives the position), and "truncated" only when the text ends too early.
 */
function jsonSyntaxProblem(
  text: string,
  error: unknown,
): { text: string; line?: number; column?: number } {
  const message = (error as Error).message;
  if (text.trim() === "") return { text: "not valid JSON (the file is empty)" };
  const at = /at position (\d+)/.exec(message);
  if (at === null) {
    // JSON.parse's SyntaxError has no code or position field: its text is all the engine gives.
    const truncated = /end of (JSON )?input/i.test(message);
    return { text: `not valid JSON${truncated ? ", truncated" : ""}: ${message}` };
  }
  const offset = Number(at[1]);
  if (offset >= text.trimEnd().length) return { text: `not valid JSON, truncated: ${message}` };
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  const near = JSON.stringify(text.slice(offset, offset + 12));
  // Columns in characters, as editors count them (an emoji is one, not two UTF-16 units).
  const column = [...text.slice(lineStart, offset)].length + 1;
  return {
    text: `line ${line}, column ${column}: not valid JSON at ${near}: ${message}`,
    line,
    column,
  };
}

function describeIoError(error: unknown): string {
  const code = (error as { code?: string }).code;
  if (code === "ENOENT") return "no such file";
  if (code === "EISDIR") return "it is a directory";
  return (error as Error).message;
}

/**
 * Reads a file in the layout `save` writes (header, then one sample per line) without holding the
 * whole text. Returns undefined when the file is in another layout.
 */
async function loadStreaming(path: string): Promise<BenchmarkResultInit | undefined> {
  const lines = createInterface({
    input: createReadStream(path, "utf8"),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  let headerText = "";
  let inSamples = false;
  let header: Header | undefined;
  const samples: SampleResult[] = [];
  let lineNo = 0;
  let closed = false;
  try {
    for await (const raw of lines) {
      lineNo++;
      if (!inSamples) {
        if (raw === ' "samples": [') {
          inSamples = true;
          header = parseHeader(JSON.parse(`${headerText.replace(/,\s*$/, "")}}`), path);
          continue;
        }
        headerText += raw;
        if (headerText.length > 64 * 1024 * 1024) return undefined;
        continue;
      }
      if (raw === "]}") {
        closed = true;
        break;
      }
      const text = raw.endsWith(",") ? raw.slice(0, -1) : raw;
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (error) {
        throw new ConfigurationError(
          `${path}:${lineNo}: not valid JSON, perhaps truncated: ${(error as Error).message}`,
          { kind: "invalid-input", path, line: lineNo, cause: error },
        );
      }
      samples.push(parseSampleJson(parsed, path, `samples[${samples.length}] (line ${lineNo})`));
    }
  } catch (error) {
    if (ConfigurationError.isInstance(error)) throw error;
    return undefined;
  } finally {
    lines.close();
  }
  if (!header) return undefined;
  if (!closed)
    throw new ConfigurationError(
      `${path}: truncated: the samples array never closes (read ${lineNo} lines)`,
      { kind: "invalid-input", path, line: lineNo },
    );
  expectStatusCounts(header.status as StatusCounts, countStatuses(samples), path);
  expectSummary(
    header.summary ?? {},
    Object.keys(header.higherIsBetter),
    (m) => scoreColumnOfSamples(samples, m),
    path,
  );
  expectResultTrials(header.trials ?? 1, samples, header.summary ?? {}, path);
  return { ...header, samples };
}
