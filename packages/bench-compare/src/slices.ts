import { BenchmarkResult, ConfigurationError, type SampleResult } from "@fastrag/bench-core";
import { describeValue } from "@fastrag/bench-core/internal";
import type { Comparison } from "./comparison.js";

// Slicing a comparison by a metadata field: one sub-comparison per value, each over the samples
// that carry it (SQuAD v2's answerable and unanswerable questions, a dataset's topics or
// difficulty levels). A slice's results are rebuilt from their records, so their summaries,
// status counts, tables, tests and diffs are those of the slice alone.

/** The prefix of a slice field: only metadata fields slice, for now (`metadata.<key>`). */
const PREFIX = "metadata.";

/**
 * The samples of a comparison whose `metadata.<key>` has one value (or that lack the key), as a
 * comparison of its own: every table, test and report of {@link Comparison} works on it.
 */
export interface ComparisonSlice {
  /** The field sliced by, as given: `"metadata.is_impossible"`. */
  readonly by: string;
  /** The value of the field in this slice; `undefined` for the slice of samples without it. */
  readonly value: unknown;
  /** `true` for the slice of the samples that lack the field. */
  readonly missing: boolean;
  /** How the slice is named in headings: `metadata.is_impossible = true`, `without metadata.topic`. */
  readonly label: string;
  /** The slice's samples in the first run (every run over one dataset has as many). */
  readonly samples: number;
  /** The slice as a comparison: the same runs, in the same order, over this slice's samples. */
  readonly comparison: Comparison;
}

/** One group of samples: its value, and per run the samples in it. */
export interface SliceGroup {
  readonly key: string;
  readonly value: unknown;
  readonly missing: boolean;
  readonly label: string;
  /** Per run, in run order: the result rebuilt over this group's samples. */
  readonly results: readonly BenchmarkResult[];
}

/**
 * The metadata key of a slice field; refuses anything but `metadata.<key>`.
 *
 * @throws {ConfigurationError} of kind `invalid-option`, option `by`.
 */
export function sliceKey(by: unknown, where: string): string {
  if (typeof by !== "string" || !by.startsWith(PREFIX) || by.length === PREFIX.length) {
    throw new ConfigurationError(
      `${where}: by: expected a metadata field as "metadata.<key>" (e.g. "metadata.is_impossible"), found ${describeValue(by)}`,
      { kind: "invalid-option", option: "by" },
    );
  }
  return by.slice(PREFIX.length);
}

/** A sample's value of the field: its own key first, else a dotted path into nested objects. */
function fieldOf(sample: SampleResult, key: string): { found: boolean; value: unknown } {
  const metadata = sample.metadata;
  if (metadata === undefined || metadata === null) return { found: false, value: undefined };
  if (Object.hasOwn(metadata, key)) return { found: true, value: metadata[key] };
  let at: unknown = metadata;
  for (const part of key.split(".")) {
    if (at === null || typeof at !== "object" || !Object.hasOwn(at, part)) {
      return { found: false, value: undefined };
    }
    at = (at as Record<string, unknown>)[part];
  }
  return { found: true, value: at };
}

/** The grouping key of a value: its JSON text (so `1` and `"1"` are two groups). */
function keyOf(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

const TYPE_ORDER: Readonly<Record<string, number>> = {
  boolean: 0,
  number: 1,
  string: 2,
  object: 3,
};

/** Groups in a stable order: false before true, numbers ascending, strings in code-unit order. */
function compareValues(x: unknown, y: unknown): number {
  const tx = TYPE_ORDER[x === null ? "object" : typeof x] ?? 4;
  const ty = TYPE_ORDER[y === null ? "object" : typeof y] ?? 4;
  if (tx !== ty) return tx - ty;
  if (typeof x === "number" && typeof y === "number") return x - y;
  if (typeof x === "boolean" && typeof y === "boolean") return Number(x) - Number(y);
  const a = typeof x === "string" ? x : keyOf(x);
  const b = typeof y === "string" ? y : keyOf(y);
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Splits every run's samples by the value of `metadata.<key>`: one group per value found in any
 * run, in a stable order (see {@link compareValues}), then the samples without the key, if any.
 * Each group holds, per run, a result rebuilt from that run's samples in the group (summary and
 * status recomputed; the dataset identity kept, so pairing still checks the runs cover one
 * dataset).
 *
 * @throws {ConfigurationError} of kind `invalid-option` (option `by`) for a field that is not
 * `metadata.<key>`, or when no sample of any run has the key (a typo would otherwise give one
 * group of every sample), listing the metadata keys the samples have.
 */
export function sliceResults(results: readonly BenchmarkResult[], by: string): SliceGroup[] {
  const key = sliceKey(by, "slices");
  const groups = new Map<string, { value: unknown; perRun: SampleResult[][] }>();
  const without: SampleResult[][] = results.map(() => []);
  let anyWithout = false;
  const keysSeen = new Set<string>();
  for (let r = 0; r < results.length; r++) {
    const samples = (results[r] as BenchmarkResult).samples;
    for (const s of samples) {
      const { found, value } = fieldOf(s, key);
      if (!found) {
        (without[r] as SampleResult[]).push(s);
        anyWithout = true;
        if (keysSeen.size < 50 && s.metadata)
          for (const k of Object.keys(s.metadata)) keysSeen.add(k);
        continue;
      }
      const k = keyOf(value);
      let group = groups.get(k);
      if (group === undefined) {
        group = { value, perRun: results.map(() => []) };
        groups.set(k, group);
      }
      (group.perRun[r] as SampleResult[]).push(s);
    }
  }
  if (groups.size === 0) {
    const known = [...keysSeen].map((k) => `metadata.${k}`);
    throw new ConfigurationError(
      `slices: no sample has ${by}; ${known.length > 0 ? `the samples' metadata fields are ${known.map((k) => `"${k}"`).join(", ")}` : "the samples have no metadata (results written before format 2 keep none)"}`,
      { kind: "invalid-option", option: "by" },
    );
  }
  const ordered = [...groups.entries()].sort((x, y) => compareValues(x[1].value, y[1].value));
  const out: SliceGroup[] = ordered.map(([k, g]) => ({
    key: k,
    value: g.value,
    missing: false,
    label: `${by} = ${typeof g.value === "string" ? g.value : k}`,
    results: results.map((r, i) => sliceOf(r, g.perRun[i] as SampleResult[])),
  }));
  if (anyWithout) {
    out.push({
      key: "",
      value: undefined,
      missing: true,
      label: `without ${by}`,
      results: results.map((r, i) => sliceOf(r, without[i] as SampleResult[])),
    });
  }
  return out;
}

/** A result over some of its samples: summary and status recomputed from them. */
function sliceOf(r: BenchmarkResult, samples: readonly SampleResult[]): BenchmarkResult {
  return new BenchmarkResult({
    name: r.name,
    createdAt: r.createdAt,
    durationS: r.durationS,
    samples,
    higherIsBetter: r.higherIsBetter,
    ...(r.dataset !== undefined ? { dataset: r.dataset } : {}),
  });
}
