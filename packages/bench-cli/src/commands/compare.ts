import { extname, resolve } from "node:path";
import { Comparison, pairSamples } from "@fastrag/bench-compare";
import { ConfigurationError, SUMMARY_STATS, type SummaryStat } from "@fastrag/bench-core";
import { writeFileAtomic } from "@fastrag/bench-core/internal";
import { fieldsOf } from "../internal/error-fields.js";
import { expandPaths } from "../internal/files.js";
import { cliPath, type Io, UsageError, writeLine } from "../internal/io.js";
import { printable, terminalSafe } from "../internal/printable.js";

export interface CompareOptions {
  readonly stat?: string;
  readonly baseline?: string;
  readonly test?: string;
  readonly alpha?: string;
  readonly format?: string;
  readonly out?: string;
  readonly diffMetric?: string;
  readonly title?: string;
  /** `--samples common|all`. */
  readonly samples?: string;
  /** `--label file=name`, repeatable. */
  readonly label?: readonly string[];
  /** `--by metadata.<key>`: one table per value of the field. */
  readonly by?: string;
}

const FORMATS = ["md", "csv", "json", "html"] as const;
type Format = (typeof FORMATS)[number];
/** The format an `--out` file's extension implies, when `--format` is not given. */
const FORMAT_OF_EXTENSION: ReadonlyMap<string, Format> = new Map([
  [".md", "md"],
  [".markdown", "md"],
  [".csv", "csv"],
  [".json", "json"],
  [".html", "html"],
  [".htm", "html"],
]);
const TESTS = ["randomization", "t-test", "none"] as const;

/** `fastrag-bench compare`: a table of runs, with significance marks against a baseline. */
export async function compareCommand(
  patterns: readonly string[],
  options: CompareOptions,
  io: Io,
): Promise<number> {
  const flags = compareFlags(options);
  const paths = await expandPaths(patterns, io.cwd);
  const comparison = relabel(await Comparison.load(...paths), options.label ?? [], io);
  const many = comparison.results.length > 1;
  const tableOptions = tableOptionsOf(comparison, flags, options, io);
  if (tableOptions.test === "none" && many) warnIfUnpaired(comparison, io);
  // The basis in force: runs that cannot be paired fall back to each run's own scores.
  const { stat, samples } = flags;
  const basis =
    samples === "common" && many
      ? (comparison.table({ stat, samples, test: "none" }).samples ?? "all")
      : "all";
  warnIfErrored(comparison, io, basis);
  const text = render(comparison, flags.format, tableOptions, options);
  const ended = text.endsWith("\n") ? text : `${text}\n`;
  if (options.out !== undefined) {
    await writeFileAtomic(cliPath(io, options.out), () => [ended]);
    writeLine(io.stderr, `wrote ${printable(options.out)}`);
  } else {
    // Markdown and JSON escape control characters themselves; a CSV or HTML document keeps a
    // name's bytes (it is data), so only a terminal gets them escaped.
    io.stdout.write(io.stdout.isTTY ? terminalSafe(ended) : ended);
  }
  return 0;
}

/** `compare`'s flags, checked before any file is read. */
interface CompareFlags {
  readonly stat: SummaryStat;
  readonly format: Format;
  readonly alpha: number | undefined;
  readonly samples: "common" | "all";
}

function compareFlags(options: CompareOptions): CompareFlags {
  // "median" is what people type for p50.
  const stat = (options.stat === "median" ? "p50" : (options.stat ?? "mean")) as SummaryStat;
  if (!(SUMMARY_STATS as readonly string[]).includes(stat)) {
    throw new UsageError(`--stat "${stat}": expected one of ${SUMMARY_STATS.join(", ")}`, {
      option: "--stat",
    });
  }
  const format = outputFormat(options.format, options.out);
  if (options.test !== undefined && !(TESTS as readonly string[]).includes(options.test)) {
    throw new UsageError(`--test "${options.test}": expected one of ${TESTS.join(", ")}`, {
      option: "--test",
    });
  }
  if (options.test !== undefined && options.test !== "none" && stat !== "mean") {
    throw new UsageError(
      `--test ${options.test} with --stat ${stat}: the tests compare per-sample means; use --stat mean, or --test none`,
      { option: "--test" },
    );
  }
  const alpha = options.alpha === undefined ? undefined : Number(options.alpha);
  if (alpha !== undefined && !(alpha > 0 && alpha < 1)) {
    throw new UsageError(`--alpha "${options.alpha}": expected a number between 0 and 1`, {
      option: "--alpha",
    });
  }
  const samples = (options.samples ?? "common") as "common" | "all";
  if (samples !== "common" && samples !== "all") {
    throw new UsageError(
      `--samples "${samples}": expected common (the samples every run scored) or all (each run's own scores)`,
      { option: "--samples" },
    );
  }
  if (options.by !== undefined && !/^metadata\.\S/.test(options.by)) {
    throw new ConfigurationError(
      `--by "${printable(options.by)}": expected a metadata field, metadata.<key> (e.g. --by metadata.is_impossible)`,
      { kind: "invalid-option", option: "--by" },
    );
  }
  return { stat, format, alpha, samples };
}

/** The table's options: the flags, the test (randomization by default for runs by the mean), the baseline. */
function tableOptionsOf(
  comparison: Comparison,
  { stat, alpha, samples }: CompareFlags,
  options: CompareOptions,
  io: Io,
) {
  const many = comparison.results.length > 1;
  // Significance needs per-sample means; other stats get a plain table.
  const test = (options.test ??
    (many && stat === "mean" ? "randomization" : "none")) as (typeof TESTS)[number];
  const baseline =
    options.baseline === undefined ? undefined : baselineIndex(comparison, options.baseline, io);
  return {
    ...(options.by !== undefined ? { by: options.by } : {}),
    stat,
    samples,
    test,
    ...(baseline !== undefined ? { baseline } : {}),
    ...(alpha !== undefined ? { alpha } : {}),
  };
}

/** The comparison in `format`; the library's errors about a flag worded as the flag's. */
function render(
  comparison: Comparison,
  format: Format,
  tableOptions: ReturnType<typeof tableOptionsOf>,
  options: CompareOptions,
): string {
  try {
    if (format === "md") return comparison.toMarkdown(tableOptions);
    if (format === "csv") return comparison.toCsv(tableOptions);
    if (format === "json") return comparison.toJson(tableOptions);
    return comparison.toHtml({
      ...tableOptions,
      ...(options.diffMetric !== undefined ? { diffMetric: options.diffMetric } : {}),
      ...(options.title !== undefined ? { title: options.title } : {}),
    });
  } catch (error) {
    if (ConfigurationError.isInstance(error) && error.option === "by") {
      // The library's error names its option; the user typed --by.
      throw new ConfigurationError(`--by ${printable(options.by ?? "")}: ${error.message}`, {
        ...fieldsOf(error),
        kind: "invalid-option",
        option: "--by",
        cause: error,
      });
    }
    if (ConfigurationError.isInstance(error) && error.kind === "unpairable-runs") {
      // The tests pair samples; a table of runs over different datasets needs none.
      throw new ConfigurationError(
        `${error.message}. For a table without significance tests: --test none`,
        { ...fieldsOf(error), option: "--test", cause: error },
      );
    }
    throw error;
  }
}

/**
 * `--label file=name`: the run of that result file shown as `name` (two runs of one name, such as
 * two seeds, told apart). The file is matched as the command's paths are (relative to the working
 * directory, or absolute); a file that is not among the compared ones is a usage error.
 */
function relabel(comparison: Comparison, labels: readonly string[], io: Io): Comparison {
  if (labels.length === 0) return comparison;
  const paths = (comparison.paths ?? []).map((p) => resolve(io.cwd, p));
  const names: Record<number, string> = {};
  for (const spec of labels) {
    const eq = spec.lastIndexOf("=");
    const file = eq > 0 ? spec.slice(0, eq) : "";
    const name = eq > 0 ? spec.slice(eq + 1) : "";
    if (file === "" || name.trim() === "") {
      throw new UsageError(`--label "${spec}": expected FILE=NAME, e.g. b/bm25.json=bm25-seed2`, {
        option: "--label",
      });
    }
    const at = paths.indexOf(resolve(io.cwd, file));
    if (at < 0) {
      throw new UsageError(
        `--label "${spec}": ${file} is not one of the compared files (${(comparison.paths ?? []).join(", ")})`,
        { option: "--label" },
      );
    }
    names[at] = name;
  }
  return comparison.renamed(names);
}

/**
 * `--format`, else the format `--out`'s extension implies (`.md`/`.markdown`, `.csv`, `.json`,
 * `.html`/`.htm`), else markdown. A `--format` that contradicts the extension is a usage error:
 * `--format md --out report.html` would write markdown into an `.html` file.
 */
export function outputFormat(format: string | undefined, out: string | undefined): Format {
  if (format !== undefined && !(FORMATS as readonly string[]).includes(format)) {
    throw new UsageError(`--format "${format}": expected one of ${FORMATS.join(", ")}`, {
      option: "--format",
    });
  }
  const ext = out === undefined ? "" : extname(out).toLowerCase();
  const implied = FORMAT_OF_EXTENSION.get(ext);
  if (format === undefined) return implied ?? "md";
  if (implied !== undefined && implied !== format) {
    throw new UsageError(
      `--format ${format} does not match --out "${out}" (a ${ext} file): drop --format to write ${implied}, or give --out a .${format} name`,
      { option: "--format" },
    );
  }
  return format as Format;
}

/**
 * The run `--baseline` names: the one run of that name, else the result file of that path (so two
 * runs of one name, such as two seeds saved as `a/bm25.json` and `b/bm25.json`, can still be told
 * apart). A name no run has is left to the library's error, which lists the runs.
 */
function baselineIndex(comparison: Comparison, baseline: string, io: Io): number | string {
  const named: number[] = [];
  comparison.results.forEach((r, i) => {
    if (r.name === baseline) named.push(i);
  });
  if (named.length === 1) return named[0] as number;
  const paths = comparison.paths ?? [];
  const file = resolve(io.cwd, baseline);
  const at = paths.findIndex((p) => resolve(io.cwd, p) === file);
  if (at >= 0) return at;
  if (named.length > 1) {
    const files = named.map((i) => paths[i] ?? `#${i + 1}`).join(", ");
    throw new UsageError(
      `--baseline "${baseline}": ${named.length} runs have that name (${files}); pass the baseline's result file instead`,
      { option: "--baseline" },
    );
  }
  return baseline;
}

/**
 * A run's means leave its errored samples out (a failure is never a zero), so a run that mostly
 * failed can top the table: say so beside it. A line per run up to {@link MAX_RUN_WARNINGS} runs;
 * beyond, one line that counts them (a comparison of 100 runs must not bury its table under 100
 * warnings), naming the runs with the most errored samples.
 */
function warnIfErrored(comparison: Comparison, io: Io, samples: "common" | "all"): void {
  const runs = comparison.results
    .map((r) => ({
      name: r.name,
      errored: r.status.errored,
      total: r.status.successful + r.status.incomplete + r.status.errored,
    }))
    .filter((r) => r.errored > 0);
  const common = samples === "common" && comparison.results.length > 1;
  const compared =
    "every run is compared on the samples all runs scored (a failure is never scored as 0)";
  if (runs.length <= MAX_RUN_WARNINGS) {
    for (const r of runs) {
      writeLine(
        io.stderr,
        `warning: ${r.errored} of ${r.total} samples of "${printable(r.name)}" errored; ${
          common ? compared : "its means leave them out (a failure is never scored as 0)"
        }`,
      );
    }
    return;
  }
  const worst = [...runs].sort((a, b) => b.errored / b.total - a.errored / a.total);
  const shown = worst
    .slice(0, 3)
    .map((r) => `"${printable(r.name)}" ${r.errored} of ${r.total}`)
    .join(", ");
  let least = Number.POSITIVE_INFINITY;
  let most = 0;
  for (const r of runs) {
    least = Math.min(least, r.errored);
    most = Math.max(most, r.errored);
  }
  writeLine(
    io.stderr,
    `warning: ${runs.length} of ${comparison.results.length} runs have errored samples (${
      least === most ? least : `${least}–${most}`
    } each; the most: ${shown}); ${
      common ? compared : "their means leave them out (a failure is never scored as 0)"
    }`,
  );
}

/** Runs warned about one by one; more are counted in one line. */
const MAX_RUN_WARNINGS = 5;

/**
 * Without a test nothing pairs the runs, so runs over different datasets would sit in one table
 * without a word: check what the tests would have refused, and say so.
 */
function warnIfUnpaired(comparison: Comparison, io: Io): void {
  const [first, ...rest] = comparison.results;
  for (const r of rest) {
    try {
      pairSamples(first as (typeof comparison.results)[number], r);
    } catch (error) {
      writeLine(
        io.stderr,
        `warning: ${printable((error as Error).message)}; the table below sets side by side runs that are not over one dataset`,
      );
      return;
    }
  }
}
