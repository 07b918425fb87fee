import { stat as statFile } from "node:fs/promises";
import { isAbsolute, resolve as resolvePath } from "node:path";
import { BenchmarkResult, ConfigurationError, type SummaryStat } from "@fastrag/bench-core";
import { forEachConcurrently, trialsDisagree, writeFileAtomic } from "@fastrag/bench-core/internal";
import { convertPathToPattern, globby } from "globby";
import { type BootstrapOptions, bootstrapCi, type ConfidenceInterval } from "./bootstrap-ci.js";
import { type DiffOptions, diff, type SampleDiff } from "./diff.js";
import { buildHtmlReport } from "./html/model.js";
import { sampleCountOf, scoreColumnOf } from "./internal/columns.js";
import { type Alignment, alignRuns, commonColumn } from "./internal/common-samples.js";
import { decimalsFor } from "./internal/format.js";
import { runLabel } from "./internal/labels.js";
import { hasOwn, own } from "./internal/own.js";
import { equalUpToRounding } from "./internal/rounding.js";
import {
  describe,
  expectInteger,
  expectNames,
  expectOptions,
  expectStat,
  isResult,
} from "./internal/validate.js";
import { leftOutSamples } from "./left-out.js";
import { pairSamples, type SamplePairing } from "./pairing.js";
import { renderCsv } from "./render-csv.js";
import { renderHtml } from "./render-html.js";
import { renderJson } from "./render-json.js";
import { renderMarkdown } from "./render-markdown.js";
import {
  renderSlicedCsv,
  renderSlicedHtml,
  renderSlicedJson,
  renderSlicedMarkdown,
  type SliceTable,
} from "./render-slices.js";
import {
  type PairedComparison,
  resolveTestOptions,
  type TestOptions,
  testPair,
} from "./significance.js";
import { type ComparisonSlice, sliceResults } from "./slices.js";
import {
  type ComparisonTable,
  DEFAULT_MAX_PAIRWISE_RUNS,
  type MarkMode,
  type RowTrials,
  type RunRef,
  type SampleBasis,
  type TableCell,
  type TableColumn,
  type TableOptions,
  type TableRow,
  type TableSignificance,
} from "./table.js";

/** Options of {@link Comparison.significance}. */
export interface SignificanceOptions extends TestOptions {
  /** The run every other run is tested against. Default: the first run. */
  readonly baseline?: RunRef;
  /** Metrics to test. Default: every metric, in {@link Comparison.metrics} order. */
  readonly metrics?: readonly string[];
}

/** Options of {@link Comparison.pairedTest}. */
export interface PairedTestOptions extends TestOptions {
  readonly metric: string;
}

/** A bootstrap CI of one run's mean of one metric. */
export interface RunInterval {
  readonly run: string;
  readonly index: number;
  readonly label: string;
  readonly metric: string;
  /** `null` when the run lacks the metric or has no scores for it. */
  readonly interval: ConfidenceInterval | null;
}

/** Options of {@link Comparison.bootstrapCi}. */
export interface ComparisonBootstrapOptions extends BootstrapOptions {
  /** Metrics to cover. Default: every metric. */
  readonly metrics?: readonly string[];
}

/**
 * Options of the rendered tables (`toMarkdown`, `toCsv`, `toJson`): the table's, and `by`.
 */
export interface RenderOptions extends TableOptions {
  /**
   * Slice the table by a metadata field, `"metadata.<key>"` (e.g. `"metadata.is_impossible"` on
   * SQuAD v2): one table per value of the field, over the samples that have it, and one for the
   * samples without it; each with its own statistics and tests, and its group's size. Markdown
   * gives a heading and a table per slice; CSV one long table whose first columns are the value,
   * `missing` and `samples`; JSON a `fastrag-bench-comparison-slices/1` document. See
   * {@link Comparison.slices}.
   */
  readonly by?: string;
}

/** Options of {@link Comparison.toHtml}: the table's options and the report's own. */
export interface HtmlReportOptions extends TableOptions {
  /**
   * Adds a section with the table sliced by a metadata field, `"metadata.<key>"`: one table per
   * value (and one for the samples without it), each with its size. See {@link RenderOptions.by}.
   */
  readonly by?: string;
  /**
   * The metric of the per-sample diff (baseline against each run). Default: the first metric.
   */
  readonly diffMetric?: string;
  /** The page title. Default: "Benchmark comparison: a vs b vs c" (run names). */
  readonly title?: string;
  /**
   * Bootstrap resamples per confidence interval. Default 10,000, fewer for runs past 2,000 scores
   * (20 million draws per interval, never under 500) so a 100k-sample report stays quick. The
   * bootstrap uses `seed` too.
   */
  readonly resamples?: number;
  /**
   * Changed samples listed per category (improved, regressed, newly errored, recovered) and run,
   * largest changes first; the report says how many more there are. Default 500.
   */
  readonly maxDiffRows?: number;
  /**
   * Metrics drawn as a latency distribution (p50/p90/p95/p99/max). Default: every metric whose
   * name contains `latency` or ends in `_ms` (see {@link isLatencyMetric}).
   */
  readonly latencyMetrics?: readonly string[];
}

/** Results are read this many at a time by {@link Comparison.load}: parallel I/O, bounded memory. */
const LOAD_CONCURRENCY = 4;

/**
 * Any number of benchmark results side by side: tables (markdown, CSV, JSON), the best run of a
 * metric, paired significance tests (ranx-style marks over every pair of runs, p-values against a
 * baseline), bootstrap CIs and per-sample diffs.
 *
 * Runs are labelled a, b, c… (then aa, ab…) in their order here: the order given to `of`, or
 * to `load` (pattern by pattern, each glob's matches in path order).
 *
 * @example
 * ```ts
 * const comparison = await Comparison.load("results/*.json");
 * console.log(comparison.toMarkdown({ baseline: "bm25", test: "randomization" }));
 * console.log(comparison.best("ndcg@5").name);
 * ```
 */
export class Comparison {
  /** The results compared, in order. */
  readonly results: readonly BenchmarkResult[];
  /** The file of each result when loaded with {@link Comparison.load}. */
  readonly paths: readonly string[] | undefined;
  readonly #direction: ReadonlyMap<string, boolean>;
  readonly #pairings = new Map<string, SamplePairing>();

  private constructor(results: readonly BenchmarkResult[], paths?: readonly string[]) {
    if (results.length === 0) {
      throw new ConfigurationError(
        "Comparison: expected at least one result, found none (an empty comparison would answer nothing)",
      );
    }
    const direction = new Map<string, boolean>();
    const owner = new Map<string, string>();
    for (let i = 0; i < results.length; i++) {
      const r = results[i];
      if (!isResult(r)) {
        throw new ConfigurationError(
          `Comparison: results[${i}]: expected a BenchmarkResult, found ${describe(r)}`,
        );
      }
      for (const [metric, higher] of Object.entries(r.higherIsBetter)) {
        const known = direction.get(metric);
        if (known === undefined) {
          direction.set(metric, higher);
          owner.set(metric, r.name);
        } else if (known !== higher) {
          throw new ConfigurationError(
            `Comparison: runs disagree on the direction of "${metric}": "${owner.get(metric)}" says ${known ? "higher" : "lower"} is better, "${r.name}" says ${higher ? "higher" : "lower"}`,
          );
        }
      }
    }
    this.results = results;
    this.paths = paths;
    this.#direction = direction;
  }

  /**
   * A comparison of results already in memory, in the order given.
   *
   * @throws {ConfigurationError} when there are no results, an entry is not a result, or two runs
   * disagree on whether a metric is better higher or lower.
   */
  static of(results: Iterable<BenchmarkResult>): Comparison {
    if (results === null || typeof results !== "object" || !(Symbol.iterator in results)) {
      throw new ConfigurationError(
        `Comparison.of: expected an array of results, found ${describe(results)}`,
      );
    }
    return new Comparison([...results]);
  }

  /**
   * Loads every result file matching the glob patterns (globby syntax, relative to the working
   * directory, or absolute), in the order of the patterns, each pattern's matches sorted by path
   * (one glob: path order). A file matched twice keeps its first place. A pattern that names an existing file is taken
   * literally, so file names with glob characters (`run[1].json`) work. A pattern starting with
   * `!` excludes what it matches from every other pattern, as in one globby call:
   * `Comparison.load("results/*.json", "!results/old-*.json")`.
   *
   * Files are loaded with `{ lazy: true }`: sample ids and scores (all the tables and tests need)
   * are read and checked now; the full sample records are read from the file when first needed
   * (`diff`, the HTML report, `result.samples`), so the files must not change in between.
   *
   * @throws {ConfigurationError} when no pattern is given (or only `!` exclusions), a pattern
   * matches nothing (naming it: an empty comparison is a silent wrong answer), or a file is not a
   * readable result.
   */
  static async load(...patterns: string[]): Promise<Comparison> {
    if (patterns.length === 0) {
      throw new ConfigurationError(
        "Comparison.load: expected at least one glob pattern, found none",
      );
    }
    for (const pattern of patterns) {
      if (typeof pattern !== "string" || pattern === "") {
        throw new ConfigurationError(
          `Comparison.load: expected a glob pattern, found ${describe(pattern)}`,
        );
      }
    }
    // A "!pattern" excludes files from every other pattern, as in one globby call. Globbed alone,
    // it would match every file of the working directory.
    const positive: { pattern: string; literal: boolean }[] = [];
    const negative: string[] = [];
    for (const pattern of patterns) {
      const literal = await isFile(pattern);
      if (!literal && pattern.startsWith("!")) negative.push(pattern);
      else positive.push({ pattern, literal });
    }
    if (positive.length === 0) {
      throw new ConfigurationError(
        `Comparison.load: expected a pattern that selects files, found only exclusions (${negative.map((p) => `"${p}"`).join(", ")})`,
      );
    }
    const excluding =
      negative.length === 0 ? "" : `, after excluding ${negative.map((p) => `"${p}"`).join(", ")}`;
    // In the order of the patterns given (so `compare c.json a.json` keeps c first, as `run`
    // printed it), each glob's matches sorted by path.
    const ordered: string[] = [];
    for (const { pattern, literal } of positive) {
      let matched: string[];
      if (literal && negative.length === 0) matched = [pattern];
      else {
        // An existing file is matched as itself, its glob characters escaped (`run[1].json`).
        const glob = literal ? convertPathToPattern(pattern) : pattern;
        matched = await globby([glob, ...negative], {
          absolute: isAbsolute(pattern),
          onlyFiles: true,
        });
      }
      if (matched.length === 0) {
        throw new ConfigurationError(
          `Comparison.load: pattern "${pattern}" matched no file (working directory ${process.cwd()}${excluding})`,
        );
      }
      matched.sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
      for (const file of matched) ordered.push(file);
    }
    const paths = ordered;
    // Two spellings of one file (a relative and an absolute pattern) load once.
    const unique: string[] = [];
    const seen = new Set<string>();
    for (const p of paths) {
      const abs = resolvePath(p);
      if (seen.has(abs)) continue;
      seen.add(abs);
      unique.push(p);
    }
    const results: BenchmarkResult[] = new Array(unique.length);
    await forEachConcurrently(unique.length, LOAD_CONCURRENCY, async (i) => {
      results[i] = await BenchmarkResult.load(unique[i] as string, { lazy: true });
    });
    return new Comparison(results, unique);
  }

  /**
   * The same comparison with some runs renamed (`{ 1: "bm25 (seed 2)" }`, by index): two runs of
   * one name become tellable apart in every table, test and report. Order and letters are kept.
   * A renamed result is rebuilt in memory from its records (read from its file if it was loaded
   * lazily); the others are shared.
   *
   * @throws {ConfigurationError} for an index out of range or a name that is not a non-empty string.
   */
  renamed(names: Readonly<Record<number, string>>): Comparison {
    if (names === null || typeof names !== "object") {
      throw new ConfigurationError(`renamed: expected { index: name }, found ${describe(names)}`);
    }
    const results = this.results.slice();
    for (const [key, name] of Object.entries(names)) {
      const i = this.#indexOf(Number(key), "renamed");
      if (typeof name !== "string" || name.trim() === "") {
        throw new ConfigurationError(
          `renamed: run ${runLabel(i)}: expected a non-empty name, found ${describe(name)}`,
        );
      }
      const r = this.results[i] as BenchmarkResult;
      results[i] = new BenchmarkResult({
        name,
        createdAt: r.createdAt,
        durationS: r.durationS,
        samples: r.samples,
        higherIsBetter: r.higherIsBetter,
        summary: r.summary,
        status: r.status,
        ...(r.dataset !== undefined ? { dataset: r.dataset } : {}),
        ...(r.shard !== undefined ? { shard: r.shard } : {}),
      });
    }
    return new Comparison(results, this.paths);
  }

  /** Every metric name across the results, in first-seen order. */
  metrics(): string[] {
    return [...this.#direction.keys()];
  }

  /** Whether a higher value of `metric` is better, as the results say. */
  higherIsBetter(metric: string): boolean {
    const d = this.#direction.get(metric);
    if (d === undefined) throw this.#unknownMetric(metric, "higherIsBetter");
    return d;
  }

  /** The label (a, b, c…) of a run. @throws {ConfigurationError} for an unknown run. */
  label(run: RunRef): string {
    return runLabel(this.#indexOf(run, "label"));
  }

  /**
   * The run with the best `stat` of `metric`, in the metric's own direction (`higher_is_better`
   * from the results: the highest recall, the lowest latency), compared on the samples every run
   * with scores for the metric scored (`options.samples`, default `"common"`; `"all"` compares each
   * run's stored summary): a run that errored on hard samples is not crowned for its mean over the
   * easy ones. Runs that cannot be paired are compared on all their samples. Runs without the
   * metric or without scores for it are passed over; ties go to the earlier run, also ties up to floating-point
   * rounding (a mean of 0.30000000000000004 ties an earlier run's 0.3), as the HTML report's ★
   * and the table's significance marks count them.
   *
   * @throws {ConfigurationError} for an unknown metric or statistic, or when no run has a value.
   */
  best(
    metric: string,
    stat: SummaryStat = "mean",
    options: { readonly samples?: SampleBasis } = {},
  ): BenchmarkResult {
    const s = expectStat(stat, "best");
    const higher = this.#direction.get(metric);
    if (higher === undefined) throw this.#unknownMetric(metric, "best");
    const basis = expectBasis(options?.samples ?? "common");
    const j = this.metrics().indexOf(metric);
    const rows = this.table({ stat: s, samples: basis }).rows;
    let extreme: number | undefined;
    for (const row of rows) {
      const v = row.cells[j]?.value;
      if (typeof v !== "number") continue;
      if (extreme === undefined || (higher ? v > extreme : v < extreme)) extreme = v;
    }
    if (extreme !== undefined) {
      for (const row of rows) {
        const v = row.cells[j]?.value;
        if (typeof v === "number" && equalUpToRounding(v, extreme)) {
          return this.results[row.index] as BenchmarkResult;
        }
      }
    }
    throw new ConfigurationError(
      `best: no run has a ${s} for "${metric}" (every run lacks it or has no scores)`,
    );
  }

  /**
   * The renderer-neutral table behind `toMarkdown`, `toCsv` and `toJson`: columns, rows, cells
   * with their significance marks. Other renderers (an HTML report) start from it.
   *
   * With a test on, marks follow ranx: every pair of runs is tested on every metric (paired, the
   * same pairing rules and the same seed for every test), and a cell's `beats` names every run it
   * beats significantly in the metric's own direction. Past `maxPairwiseRuns` runs (default 12,
   * i.e. 66 tests per metric) marks fall back to tests against the baseline only, and
   * `significance.marks` says `"baseline"`. Either way each cell's `test` (and
   * `significance.comparisons`) is the test against the baseline.
   *
   * @throws {ConfigurationError} for an unknown statistic, an unknown baseline, significance
   * asked with a statistic other than the mean, a bad `maxPairwiseRuns`, or runs over different
   * datasets.
   */
  table(options: TableOptions = {}): ComparisonTable {
    if (options === null || typeof options !== "object") {
      throw new ConfigurationError(`table: expected options, found ${describe(options)}`);
    }
    if ((options as { by?: unknown }).by !== undefined) {
      throw new ConfigurationError(
        "table: by slices a comparison into several tables; use slices(by) and each slice's comparison.table(), or toMarkdown/toCsv/toJson/toHtml({ by })",
        { kind: "invalid-option", option: "by" },
      );
    }
    const stat = expectStat(options.stat ?? "mean", "table");
    const maxPairwiseRuns = expectInteger(
      options.maxPairwiseRuns ?? DEFAULT_MAX_PAIRWISE_RUNS,
      "table: maxPairwiseRuns",
      0,
    );
    const testName = options.test ?? (options.baseline !== undefined ? "randomization" : "none");
    // Checked even when no test runs: a mistyped baseline in a CI gate must not pass unnoticed.
    if (options.baseline !== undefined) this.#indexOf(options.baseline, "table: baseline");
    const asked = expectBasis(options.samples ?? "common");
    const metrics = this.metrics();
    const allValues: (number | null | undefined)[][] = this.results.map((r) =>
      metrics.map((m) => {
        const s = own(r.summary, m);
        if (s === undefined) return hasOwn(r.higherIsBetter, m) ? null : undefined;
        return s[stat];
      }),
    );
    let basis: SampleBasis = "all";
    let basisNote: string | null = null;
    const values = allValues.map((row) => row.slice());
    const dropped: number[][] = this.results.map(() => metrics.map(() => 0));
    const commonCounts: (number | null)[] = metrics.map(() => null);
    if (asked === "common" && this.results.length > 1) {
      const aligned = this.#alignment();
      if (aligned.positions === null) basisNote = aligned.reason;
      else {
        basis = "common";
        for (let j = 0; j < metrics.length; j++) {
          const c = commonColumn(this.results, aligned.positions, metrics[j] as string, stat);
          commonCounts[j] = c.common;
          for (let i = 0; i < this.results.length; i++) {
            const v = c.values[i];
            if (v !== undefined) (values[i] as (number | null | undefined)[])[j] = v;
            (dropped[i] as number[])[j] = c.dropped[i] as number;
          }
        }
      }
    }
    const columns: TableColumn[] = metrics.map((metric, j) => ({
      metric,
      header: stat === "mean" ? metric : `${metric} ${stat}`,
      higherIsBetter: this.#direction.get(metric) as boolean,
      decimals: decimalsFor(
        values.map((row) => row[j]),
        stat,
      ),
      commonSamples: commonCounts[j] ?? null,
      narrowed: dropped.some((row) => (row[j] as number) > 0),
    }));
    const wins: Mark[][][] = this.results.map(() => metrics.map(() => []));
    const tests: (PairedComparison | undefined)[][] = this.results.map(() =>
      metrics.map(() => undefined),
    );
    let significance: TableSignificance | null = null;
    if (testName !== "none") {
      if (stat !== "mean") {
        throw new ConfigurationError(
          `table: significance marks need stat "mean" (the tests compare per-sample scores), found stat "${stat}"; use test: "none"`,
        );
      }
      const resolved = resolveTestOptions({ ...options, test: testName }, "table");
      const baselineIndex = this.#indexOf(options.baseline ?? 0, "table: baseline");
      const comparisons = this.#testAgainst(baselineIndex, metrics, resolved);
      const marks: MarkMode = this.results.length <= maxPairwiseRuns ? "all-pairs" : "baseline";
      const pairwise =
        marks === "all-pairs" ? this.#testPairs(baselineIndex, metrics, resolved) : [];
      const column = new Map<string, number>();
      for (let j = 0; j < metrics.length; j++) column.set(metrics[j] as string, j);
      for (const c of comparisons) {
        (tests[c.index] as (PairedComparison | undefined)[])[column.get(c.metric) as number] = c;
      }
      // Every test behind the marks: the winner's cell names the loser.
      for (const list of [comparisons, pairwise]) {
        for (const c of list) {
          if (c.better === null) continue;
          const j = column.get(c.metric) as number;
          const runWon = c.better === "run";
          const winner = runWon ? c.index : c.baselineIndex;
          const loser = runWon ? c.baselineIndex : c.index;
          ((wins[winner] as Mark[][])[j] as Mark[]).push({ loser, test: c });
        }
      }
      const base = this.results[baselineIndex] as BenchmarkResult;
      significance = {
        test: resolved.test,
        alpha: resolved.alpha,
        permutations: resolved.permutations,
        seed: resolved.seed,
        baselineIndex,
        baselineLabel: runLabel(baselineIndex),
        baseline: base.name,
        marks,
        maxPairwiseRuns,
        comparisons,
        pairwise,
        leftOutSamples: leftOutSamples(this.results, [...comparisons, ...pairwise], (i, j) =>
          this.#pairing(i, j),
        ),
      };
    }
    const rows: TableRow[] = this.results.map((r, i) => ({
      index: i,
      label: runLabel(i),
      name: r.name,
      isBaseline: significance?.baselineIndex === i,
      status: r.status,
      ...(r.trials > 1 ? { trials: rowTrials(r, metrics) } : {}),
      cells: metrics.map((_, j): TableCell => {
        const test = tests[i]?.[j];
        const marks = (wins[i] as Mark[][])[j] as Mark[];
        // In run order: a before b before c, whichever test found them.
        if (marks.length > 1) marks.sort((x, y) => x.loser - y.loser);
        const cell = {
          value: values[i]?.[j],
          beats: marks.map((m) => runLabel(m.loser)),
          wins: marks.map((m) => m.test),
          allValue: allValues[i]?.[j],
          dropped: dropped[i]?.[j] ?? 0,
        };
        return test === undefined ? cell : { ...cell, test };
      }),
    }));
    return { stat, samples: basis, basisNote, columns, rows, significance };
  }

  /**
   * The comparison as a markdown table: one row per run, one column per metric, `—` where a run
   * lacks a metric (or has no scores for it). Scores in [0, 1] print with 4 decimals; other
   * magnitudes (latency) with fewer as they grow. When `stat` is not the mean, every header
   * carries it (`latency_ms p95`).
   *
   * With a `baseline` (or a `test`), marks follow ranx: runs are labelled a, b, c… in a first
   * column, every pair of runs is tested on every metric, a superscript letter on a score names
   * each run it beats significantly, and a legend under the table gives the test, alpha and
   * labels. Past `maxPairwiseRuns` runs (default 12) each run is tested against the baseline only
   * (a run's cell can then only carry the baseline's letter), and the legend says so. There is
   * no multiple-comparison correction.
   *
   * @throws {ConfigurationError} as {@link Comparison.table}.
   * @example
   * ```ts
   * comparison.toMarkdown();        // means
   * comparison.toMarkdown("p95");   // headers read "latency_ms p95"
   * comparison.toMarkdown({ baseline: "bm25", test: "t-test", alpha: 0.01 });
   * ```
   */
  toMarkdown(options: SummaryStat | RenderOptions = "mean"): string {
    const opts = typeof options === "string" ? { stat: options } : options;
    if (hasBy(opts)) return renderSlicedMarkdown(opts.by, this.#sliceTables(opts.by, opts));
    return renderMarkdown(this.table(opts));
  }

  /**
   * The table as CSV (RFC 4180), safe to open in a spreadsheet: text cells that could run as a
   * formula are neutralized, numbers stay numbers. See {@link renderCsv}.
   *
   * @throws {ConfigurationError} as {@link Comparison.table}.
   */
  toCsv(options: SummaryStat | RenderOptions = "mean"): string {
    const opts = typeof options === "string" ? { stat: options } : options;
    if (hasBy(opts)) return renderSlicedCsv(opts.by, this.#sliceTables(opts.by, opts));
    return renderCsv(this.table(opts));
  }

  /**
   * The table as JSON text (`format: "fastrag-bench-comparison/1"`), with file paths when the
   * results were loaded from files. See {@link renderJson}.
   *
   * @throws {ConfigurationError} as {@link Comparison.table}.
   */
  toJson(options: SummaryStat | RenderOptions = "mean"): string {
    const opts = typeof options === "string" ? { stat: options } : options;
    if (hasBy(opts)) {
      return renderSlicedJson(opts.by, this.#sliceTables(opts.by, opts), this.paths);
    }
    return renderJson(this.table(opts), this.paths);
  }

  /**
   * The comparison as one self-contained HTML page: a header with the runs, their dates and
   * status counts; the table of means with 95 % bootstrap CIs, significance marks (every pair
   * of runs, as in `table()`) and the best run per metric highlighted; a dot chart per metric (means with CI
   * whiskers); a distribution view per latency metric; and the per-sample diff of the baseline
   * against each run on `diffMetric`, sortable and filterable. Inline CSS, SVG and script only,
   * under a Content-Security-Policy of `default-src 'none'`: the page makes no network request.
   * All user text is escaped. Deterministic: the same results and options give the same bytes.
   *
   * Unlike `table()`, a report of two runs or more tests against the baseline (the first run by
   * default) with the randomization test unless `test: "none"` is given, and with a statistic
   * other than the mean it shows that statistic without CIs or marks.
   *
   * @throws {ConfigurationError} as {@link Comparison.table}, for an unknown `diffMetric` or
   * latency metric, and for bad option values.
   * @example
   * ```ts
   * await writeFile("report.html", comparison.toHtml({ baseline: "bm25", diffMetric: "ndcg@5" }));
   * ```
   */
  toHtml(options: HtmlReportOptions = {}): string {
    if (!hasBy(options)) return renderHtml(buildHtmlReport(this, options));
    const { by, ...rest } = options;
    // The report's own defaults: a test against the baseline when there are two runs or more.
    const test =
      rest.test ??
      (this.results.length > 1 && (rest.stat ?? "mean") === "mean" ? "randomization" : "none");
    const slices = renderSlicedHtml(by, this.#sliceTables(by, { ...tableOptionsOf(rest), test }));
    return renderHtml(buildHtmlReport(this, rest), slices);
  }

  /**
   * The comparison sliced by a metadata field, `"metadata.<key>"`: one slice per value of the
   * field found in any run (false before true, numbers ascending, strings in code-unit order;
   * values compared as JSON, so `1` and `"1"` differ), then the samples without the field, if
   * any. Each slice is a comparison of the same runs over its samples: its tables, `best()`,
   * tests, diffs and report cover that slice only. On SQuAD v2, `slices("metadata.is_impossible")`
   * gives the official HasAns (`false`) and NoAns (`true`) scores.
   *
   * The runs' sample records are read (from their files, for a lazily loaded comparison).
   *
   * @throws {ConfigurationError} of kind `invalid-option` (option `by`) for a field that is not
   * `metadata.<key>`, or that no sample has (the message lists the fields the samples have).
   * @example
   * ```ts
   * for (const slice of comparison.slices("metadata.is_impossible")) {
   *   console.log(slice.label, slice.samples, slice.comparison.toMarkdown());
   * }
   * ```
   */
  slices(by: string): ComparisonSlice[] {
    return sliceResults(this.results, by).map((g) => ({
      by,
      value: g.value,
      missing: g.missing,
      label: g.label,
      samples: g.results[0]?.samples.length ?? 0,
      comparison: new Comparison(g.results, this.paths),
    }));
  }

  #sliceTables(by: string, options: TableOptions): SliceTable[] {
    const table = tableOptionsOf(options);
    return this.slices(by).map((s) => ({
      label: s.label,
      value: s.value,
      missing: s.missing,
      samples: s.samples,
      table: s.comparison.table(table),
    }));
  }

  /**
   * Writes the markdown table (the means, unless `options` say otherwise; sliced with `by`) to
   * `path`, atomically: a temporary file, then a rename.
   *
   * @throws {ConfigurationError} as {@link Comparison.table}.
   */
  async save(path: string, options: SummaryStat | RenderOptions = "mean"): Promise<void> {
    const text = this.toMarkdown(options);
    await writeFileAtomic(path, () => [text]);
  }

  /**
   * Paired tests of every run against a baseline, per metric: p-value, effect (mean difference
   * `run − baseline` over the pairs), pairs used and pairs left out (errored or null scores).
   * Runs must cover the same dataset (see {@link pairSamples}). The tests between other pairs of
   * runs, behind the table's marks, are in `table(options).significance.pairwise`.
   *
   * @throws {ConfigurationError} for an unknown baseline or metric, bad options, or runs over
   * different datasets.
   */
  significance(options: SignificanceOptions = {}): PairedComparison[] {
    const opts = expectOptions(options, "significance");
    const resolved = resolveTestOptions(opts, "significance");
    const baselineIndex = this.#indexOf(opts.baseline ?? 0, "significance: baseline");
    const metrics =
      opts.metrics === undefined
        ? this.metrics()
        : expectNames(opts.metrics, "significance: metrics");
    for (const m of metrics) {
      if (!this.#direction.has(m)) throw this.#unknownMetric(m, "significance");
    }
    return this.#testAgainst(baselineIndex, metrics, resolved);
  }

  /**
   * One paired test of `run` against `baseline` on one metric.
   *
   * @throws {ConfigurationError} for an unknown run or metric, bad options, or runs over
   * different datasets.
   * @example
   * ```ts
   * const { p, meanDiff } = comparison.pairedTest("dense", "bm25", { metric: "recall@5" });
   * ```
   */
  pairedTest(run: RunRef, baseline: RunRef, options: PairedTestOptions): PairedComparison {
    if (options === null || typeof options !== "object" || Array.isArray(options)) {
      throw new ConfigurationError(
        `pairedTest: expected options with a metric ({ metric: "…" }), found ${describe(options)}`,
      );
    }
    const resolved = resolveTestOptions(options, "pairedTest");
    const i = this.#indexOf(run, "pairedTest: run");
    const b = this.#indexOf(baseline, "pairedTest: baseline");
    const higher = this.#direction.get(options.metric);
    if (higher === undefined) throw this.#unknownMetric(options.metric, "pairedTest");
    return testPair(this.results, i, b, options.metric, higher, this.#pairing(i, b), resolved);
  }

  /**
   * A seeded percentile-bootstrap CI of each run's mean, per metric, over its non-null scores.
   *
   * @throws {ConfigurationError} for an unknown metric or bad options.
   */
  bootstrapCi(options: ComparisonBootstrapOptions = {}): RunInterval[] {
    const opts = expectOptions(options, "bootstrapCi");
    const metrics =
      opts.metrics === undefined
        ? this.metrics()
        : expectNames(opts.metrics, "bootstrapCi: metrics");
    const out: RunInterval[] = [];
    for (const metric of metrics) {
      if (!this.#direction.has(metric)) throw this.#unknownMetric(metric, "bootstrapCi");
      for (let i = 0; i < this.results.length; i++) {
        const r = this.results[i] as BenchmarkResult;
        const scores: number[] = [];
        const column = scoreColumnOf(r, metric);
        for (let j = 0; j < column.length; j++) {
          const v = column[j] as number;
          if (!Number.isNaN(v)) scores.push(v);
        }
        out.push({
          run: r.name,
          index: i,
          label: runLabel(i),
          metric,
          interval: scores.length === 0 ? null : bootstrapCi(scores, opts),
        });
      }
    }
    return out;
  }

  /**
   * Per-sample diff of two runs of this comparison. See {@link diff}.
   *
   * @throws {ConfigurationError} as {@link diff}, or for an unknown run.
   */
  diff(baseline: RunRef, candidate: RunRef, options: DiffOptions): SampleDiff {
    const b = this.#indexOf(baseline, "diff: baseline");
    const c = this.#indexOf(candidate, "diff: candidate");
    return diff(this.results[b] as BenchmarkResult, this.results[c] as BenchmarkResult, options);
  }

  #testAgainst(
    baselineIndex: number,
    metrics: readonly string[],
    resolved: ReturnType<typeof resolveTestOptions>,
  ): PairedComparison[] {
    const out: PairedComparison[] = [];
    for (let i = 0; i < this.results.length; i++) {
      if (i === baselineIndex) continue;
      const pairing = this.#pairing(i, baselineIndex);
      for (const metric of metrics) {
        const higher = this.#direction.get(metric) as boolean;
        out.push(testPair(this.results, i, baselineIndex, metric, higher, pairing, resolved));
      }
    }
    return out;
  }

  /**
   * Paired tests of every pair of runs neither of which is the baseline (the later run against
   * the earlier), per metric; the same seed for every test.
   */
  #testPairs(
    baselineIndex: number,
    metrics: readonly string[],
    resolved: ReturnType<typeof resolveTestOptions>,
  ): PairedComparison[] {
    const out: PairedComparison[] = [];
    for (let i = 0; i < this.results.length; i++) {
      if (i === baselineIndex) continue;
      for (let k = i + 1; k < this.results.length; k++) {
        if (k === baselineIndex) continue;
        const pairing = this.#pairing(k, i);
        for (const metric of metrics) {
          const higher = this.#direction.get(metric) as boolean;
          out.push(testPair(this.results, k, i, metric, higher, pairing, resolved));
        }
      }
    }
    return out;
  }

  #aligned: Alignment | undefined;

  /** Every run's samples aligned on the first run's, computed once. */
  #alignment(): Alignment {
    this.#aligned ??= alignRuns(this.results, (i, j) => this.#pairing(i, j), sampleCountOf);
    return this.#aligned;
  }

  #pairing(i: number, j: number): SamplePairing {
    const key = `${i}:${j}`;
    let p = this.#pairings.get(key);
    if (p === undefined) {
      p = pairSamples(this.results[i] as BenchmarkResult, this.results[j] as BenchmarkResult);
      this.#pairings.set(key, p);
    }
    return p;
  }

  #indexOf(run: RunRef, where: string): number {
    if (typeof run === "number") {
      if (Number.isInteger(run) && run >= 0 && run < this.results.length) return run;
      throw new ConfigurationError(
        `${where}: run index ${run} is out of range; the comparison has ${this.results.length} run(s)`,
      );
    }
    if (typeof run === "string") {
      let found = -1;
      for (let i = 0; i < this.results.length; i++) {
        if ((this.results[i] as BenchmarkResult).name !== run) continue;
        if (found >= 0) {
          throw new ConfigurationError(
            `${where}: run name "${run}" is ambiguous (runs ${runLabel(found)} and ${runLabel(i)}); pass its index instead`,
          );
        }
        found = i;
      }
      if (found >= 0) return found;
      throw new ConfigurationError(
        `${where}: no run named "${run}"; runs are ${this.results.map((r) => `"${r.name}"`).join(", ")}`,
      );
    }
    const i = this.results.indexOf(run);
    if (i >= 0) return i;
    throw new ConfigurationError(
      `${where}: expected a run name, index or one of the comparison's results, found ${describe(run)}`,
    );
  }

  #unknownMetric(metric: string, where: string): ConfigurationError {
    return new ConfigurationError(
      `${where}: unknown metric ${describe(metric)}; the runs have ${this.metrics()
        .map((m) => `"${m}"`)
        .join(", ")}`,
    );
  }
}

/** One significance mark: the run beaten, and the test that says so. */
interface Mark {
  readonly loser: number;
  readonly test: PairedComparison;
}

/** Whether rendering options slice the table (`by` given). */
function hasBy<T extends { readonly by?: string }>(options: T): options is T & { by: string } {
  return options !== null && typeof options === "object" && options.by !== undefined;
}

/** The table's own options out of rendering options (without `by` and the report's). */
function tableOptionsOf(options: TableOptions): TableOptions {
  const { stat, samples, baseline, test, maxPairwiseRuns, alpha, permutations, seed } = options;
  const out: Record<string, unknown> = {};
  const entries = { stat, samples, baseline, test, maxPairwiseRuns, alpha, permutations, seed };
  for (const [k, v] of Object.entries(entries)) if (v !== undefined) out[k] = v;
  return out as TableOptions;
}

function expectBasis(samples: unknown): SampleBasis {
  if (samples === "common" || samples === "all") return samples;
  throw new ConfigurationError(
    `samples: expected "common" (the samples every run scored) or "all" (each run's own scores), found ${describe(samples)}`,
  );
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await statFile(path)).isFile();
  } catch {
    return false;
  }
}

/** How many samples' trials disagree on each metric (a run with trials: its records are read). */
function rowTrials(r: BenchmarkResult, metrics: readonly string[]): RowTrials {
  const samples = r.samples;
  const flipped = metrics.map((m) => {
    if (!hasOwn(r.higherIsBetter, m)) return undefined;
    let n = 0;
    for (const s of samples) if (trialsDisagree(s, m)) n++;
    return n;
  });
  return { trials: r.trials, samples: samples.length, flipped };
}
