// One line of a checkpoint journal read: its JSON, the header checked against the run resuming
// it, an entry checked against the dataset sample at its index; torn lines told apart.
import { isUtf8 } from "node:buffer";
import { ConfigurationError } from "../errors.js";
import { parseSampleJson } from "../result/decode-sample.js";
import type { SampleResult } from "../types.js";
import { JOURNAL_FORMAT, type JournalHeader } from "./journal.js";
import { shortText } from "./text.js";

export const TORN: unique symbol = Symbol("torn");
export const BLANK: unique symbol = Symbol("blank");

/**
 * A line's JSON value; `BLANK` for a line of whitespace; `TORN` for one that is not valid UTF-8
 * or not valid JSON (a torn write can end inside a character).
 */
export function parseLine(bytes: Buffer, lineNo: number): unknown {
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
export function describeTorn(bytes: Buffer): { index: number; id: string | undefined } | undefined {
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
export function refuseUnlessTornHeader(text: string, path: string): void {
  const lead = `{"journal":${JSON.stringify(JOURNAL_FORMAT)}`;
  const line = text.trimStart();
  if (lead.startsWith(line) || line.startsWith(lead)) return;
  throw new ConfigurationError(
    `${path}: not a fastrag bench checkpoint journal (its first line is not a journal header), so it is left as is; use another checkpoint path, or delete the file if it is an old journal`,
    { kind: "journal-unusable", path },
  );
}

export function expectHeader(value: unknown, expected: JournalHeader, path: string): void {
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

export function parseEntry(
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
