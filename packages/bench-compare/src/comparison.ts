// `Comparison`, the facade: each method checks its arguments and hands off to the module of its
// job: `load-results.ts` (files), `compared-runs.ts` (the runs checked once, runs found, samples
// paired), `build-table.ts` (the table and its marks), `test-runs.ts` (which runs are tested),
// `best-run.ts`, `run-intervals.ts`, `slices.ts`, `diff.ts`, and the `render-*.ts` renderers.
import { type BenchmarkResult, ConfigurationError, type SummaryStat } from "@fastrag/bench-core";
import { describeValue, writeFileAtomic } from "@fastrag/bench-core/internal";
import { bestRowOf } from "./best-run.js";
import { buildTable, expectBasis } from "./build-table.js";
import { ComparedRuns, renamedResult } from "./compared-runs.js";
import {
  type ComparisonBootstrapOptions,
  type HtmlReportOptions,
  hasBy,
  type PairedTestOptions,
  type RenderOptions,
  type RunInterval,
  type SignificanceOptions,
  tableOptionsOf,
} from "./comparison-options.js";
import { type DiffOptions, diff, type SampleDiff } from "./diff.js";
import { buildHtmlReport } from "./html/model.js";
import { runLabel } from "./internal/labels.js";
import { expectNames, expectOptions, expectStat } from "./internal/validate.js";
import { loadResultFiles } from "./load-results.js";
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
import { runIntervals } from "./run-intervals.js";
import { expectTestOptions, type PairedComparison, testPair } from "./significance.js";
import { type ComparisonSlice, sliceResults } from "./slices.js";
import type { ComparisonTable, RunRef, SampleBasis, TableOptions } from "./table.js";
import { testAgainstBaseline } from "./test-runs.js";

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
  readonly #runs: ComparedRuns;

  private constructor(results: readonly BenchmarkResult[], paths?: readonly string[]) {
    this.#runs = new ComparedRuns(results);
    this.results = results;
    this.paths = paths;
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
        `Comparison.of: expected an array of results, found ${describeValue(results)}`,
        { kind: "invalid-option", option: "results" },
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
    const { results, paths } = await loadResultFiles(patterns);
    return new Comparison(results, paths);
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
      throw new ConfigurationError(
        `renamed: expected { index: name }, found ${describeValue(names)}`,
        { kind: "invalid-option", option: "names" },
      );
    }
    const results = this.results.slice();
    for (const [key, name] of Object.entries(names)) {
      const i = this.#runs.expectRunIndex(Number(key), "renamed");
      if (typeof name !== "string" || name.trim() === "") {
        throw new ConfigurationError(
          `renamed: run ${runLabel(i)}: expected a non-empty name, found ${describeValue(name)}`,
          { kind: "invalid-option", option: "names" },
        );
      }
      results[i] = renamedResult(this.results[i] as BenchmarkResult, name);
    }
    return new Comparison(results, this.paths);
  }

  /** Every metric name across the results, in first-seen order. */
  metrics(): string[] {
    return this.#runs.metrics();
  }

  /** Whether a higher value of `metric` is better, as the results say. */
  higherIsBetter(metric: string): boolean {
    return this.#runs.expectDirection(metric, "higherIsBetter");
  }

  /** The label (a, b, c…) of a run. @throws {ConfigurationError} for an unknown run. */
  label(run: RunRef): string {
    return runLabel(this.#runs.expectRunIndex(run, "label"));
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
    const s = expectStat(stat, "best", "stat");
    const higher = this.#runs.expectDirection(metric, "best");
    const basis = expectBasis(options?.samples ?? "common");
    const j = this.metrics().indexOf(metric);
    const best = bestRowOf(this.table({ stat: s, samples: basis }).rows, j, higher);
    if (best !== undefined) return this.results[best.index] as BenchmarkResult;
    throw new ConfigurationError(
      `best: no run has a ${s} for "${metric}" (every run lacks it or has no scores)`,
      { kind: "invalid-input", field: metric },
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
    return buildTable(this.#runs, options);
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
    const resolved = expectTestOptions(opts, "significance");
    const baselineIndex = this.#runs.expectRunIndex(opts.baseline ?? 0, "significance: baseline");
    const metrics =
      opts.metrics === undefined
        ? this.metrics()
        : expectNames(opts.metrics, "significance: metrics", "metrics");
    for (const m of metrics) this.#runs.expectDirection(m, "significance");
    return testAgainstBaseline(this.#runs, baselineIndex, metrics, resolved);
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
        `pairedTest: expected options with a metric ({ metric: "…" }), found ${describeValue(options)}`,
        { kind: "invalid-option" },
      );
    }
    const resolved = expectTestOptions(options, "pairedTest");
    const i = this.#runs.expectRunIndex(run, "pairedTest: run");
    const b = this.#runs.expectRunIndex(baseline, "pairedTest: baseline");
    const higher = this.#runs.expectDirection(options.metric, "pairedTest");
    return testPair(this.results, i, b, options.metric, higher, this.#runs.pairing(i, b), resolved);
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
        : expectNames(opts.metrics, "bootstrapCi: metrics", "metrics");
    return runIntervals(this.#runs, metrics, opts);
  }

  /**
   * Per-sample diff of two runs of this comparison. See {@link diff}.
   *
   * @throws {ConfigurationError} as {@link diff}, or for an unknown run.
   */
  diff(baseline: RunRef, candidate: RunRef, options: DiffOptions): SampleDiff {
    const b = this.#runs.expectRunIndex(baseline, "diff: baseline");
    const c = this.#runs.expectRunIndex(candidate, "diff: candidate");
    return diff(this.results[b] as BenchmarkResult, this.results[c] as BenchmarkResult, options);
  }
}
