// The lines `run` prints about a finished target beyond its summary line.
import type { BenchmarkResult } from "@fastrag/bench-core";
import { printable } from "../../internal/printable.js";

/** `n word`, with an `s` unless n is 1, n grouped by thousands. */
export function plural(n: number, word: string): string {
  return `${n.toLocaleString("en-US")} ${word}${n === 1 ? "" : "s"}`;
}

/**
 * What a finished target's summary line cannot say: why samples errored (the first distinct
 * messages; every one is in the result file), and metrics that scored no sample at all (a
 * dataset without what they need: expected answers, relevant ids).
 */
export function problemLines(result: BenchmarkResult, file: string, verbose = false): string[] {
  const lines: string[] = [];
  if (verbose) {
    // Every error in full, with its stack when the result keeps one (result format 2).
    for (const sample of result.samples) {
      if (sample.error === null) continue;
      const stack = (sample as { errorStack?: string | null }).errorStack;
      const id = sample.sampleId === undefined ? "" : `${printable(sample.sampleId)}: `;
      lines.push(`${sample.status} ${id}${printable(sample.error)}`);
      if (typeof stack === "string" && stack !== "") {
        for (const frame of stack.split("\n")) lines.push(`    ${printable(frame)}`);
      }
    }
  }
  // Errored samples: the pipeline failed. Incomplete ones with an error: a metric threw.
  const errored = { count: 0, examples: [] as string[] };
  const metricErrors = { count: 0, examples: [] as string[] };
  for (const sample of result.samples) {
    if (sample.error === null) continue;
    const group = sample.status === "errored" ? errored : metricErrors;
    group.count++;
    // One line each: a multi-line message would break the indented summary.
    const flat = sample.error.replace(/\s*\n\s*/g, " ");
    const text = flat.length > 300 ? `${flat.slice(0, 300)}…` : flat;
    if (group.examples.length < 2 && !group.examples.includes(text)) group.examples.push(text);
  }
  const n = result.samples.length;
  if (errored.count > 0) {
    const who = errored.count === n && n > 1 ? "every sample" : plural(errored.count, "sample");
    lines.push(`${who} errored, e.g. ${errored.examples.join("; or ")}`);
  }
  if (metricErrors.count > 0) {
    lines.push(
      `a metric failed on ${plural(metricErrors.count, "sample")}, e.g. ${metricErrors.examples.join("; or ")}`,
    );
  }
  if (errored.count + metricErrors.count > errored.examples.length + metricErrors.examples.length) {
    lines.push(`every error is in ${file}`);
  }
  for (const [metric, summary] of Object.entries(result.summary)) {
    if (summary.count > 0 || errored.count === n) continue;
    // A metric that threw on every sample has said why above; one that returned null everywhere
    // found nothing to score.
    const failed = result.samples.some(
      (s) => s.status === "incomplete" && s.error?.includes(`${metric}: `),
    );
    lines.push(
      failed
        ? `${metric} scored no sample: it failed on them (see above)`
        : `${metric} scored no sample: does the dataset have what it needs (expected answers for answer metrics, relevant ids for retrieval metrics)?`,
    );
  }
  return lines;
}
