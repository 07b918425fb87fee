// trec_eval's own test files (the shared data's `trec_eval/`: runs, qrels and the outputs
// trec_eval printed for them), and `eval`'s output read the same way, for the parity tests.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { sharedData } from "../../../../test-support/shared-data.js";

/** The folder of trec_eval's test files. */
export const trec: string = sharedData("trec_eval/");

/** trec_eval's values, `measure|query` → value, from one of its expected-output files. */
export async function trecEvalValues(file: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const line of (await readFile(join(trec, file), "utf8")).split("\n")) {
    const [measure, query, value] = line.split("\t").map((s) => s.trim());
    if (measure && query && value !== undefined && !Number.isNaN(Number(value))) {
      out.set(`${measure}|${query}`, Number(value));
    }
  }
  return out;
}

/** `eval`'s `metric<TAB>query<TAB>value` lines, `metric|query` → value (the metric as `name` says). */
export function evalValues(
  stdout: string,
  name: (metric: string) => string = (metric) => metric,
): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of stdout.trim().split("\n")) {
    const [metric, query, value] = line.split("\t");
    out.set(`${name(metric as string)}|${query}`, Number(value));
  }
  return out;
}

/** Only trec_eval's counts (`num_q`, `num_ret`, `num_rel`, `num_rel_ret`) of `values`. */
export function countsOf(values: ReadonlyMap<string, number>): Map<string, number> {
  return new Map([...values].filter(([key]) => /^num_(q|ret|rel|rel_ret)\|/.test(key)));
}
