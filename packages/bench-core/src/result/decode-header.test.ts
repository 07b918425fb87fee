import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { BenchmarkResult } from "../benchmark-result.js";
import { ConfigurationError } from "../errors.js";

// The bad-input corpus: every file under __fixtures__/bad must give a ConfigurationError that
// names the file and where in it the problem is. A file without an expectation here fails the
// test, so the corpus and its expectations cannot drift apart.
const bad = fileURLToPath(new URL("../__fixtures__/bad/", import.meta.url));

const RESULTS: Record<string, RegExp> = {
  "a-dataset.json": /format: expected a string, found undefined/,
  "bad-date.json": /created_at: expected an ISO-8601 date, found "yesterday"/,
  "bad-status.json":
    /samples\[0\]\.status: expected "successful", "incomplete" or "errored", found "ok"/,
  "bare-array.json": /the top level: expected an object, found an array/,
  "bom-crlf-truncated.json": /not valid JSON, truncated/,
  "empty.json": /not valid JSON \(the file is empty\)/,
  "huge-number.json":
    /duration_s: expected a non-negative number|duration_s: expected a finite number/,
  "invalid-utf8.json": /: line \d+, column \d+: invalid UTF-8 at byte \d+ \(found 0x/,
  "negative-count.json": /status\.errored: expected a non-negative integer, found the number -1/,
  "no-format.json": /format: expected a string/,
  "numeric-retrieved-id.json":
    /samples\[0\]\.retrieved_ids\[0\]: expected a string, found the number 3/,
  "samples-object.json": /samples: expected an array, found an object/,
  "score-string.json":
    /samples\[0\]\.scores\["m"\]: expected a finite number or null, found the string "1"/,
  "summary-nan-string.json":
    /summary\["m"\]\.mean: expected a finite number or null, found the string "NaN"/,
  // "toString" is on Object.prototype, not in the file: it must not pass as a direction.
  "summary-inherited-direction.json":
    /summary has metric "toString" but higher_is_better does not say its direction/,
  "truncated.json": /not valid JSON, truncated/,
  "wrong-version.json": /format "fastrag-bench-result\/9" is not supported/,
};

describe("bad result files", async () => {
  const files = (await readdir(join(bad, "results"))).sort();
  it("has an expectation for every file in the corpus", () => {
    expect(files).toEqual(Object.keys(RESULTS).sort());
  });
  it.each(files)("%s → ConfigurationError naming the file and the place", async (file) => {
    const path = join(bad, "results", file);
    const error = await BenchmarkResult.load(path).catch((e: unknown) => e);
    expect(ConfigurationError.isInstance(error), String(error)).toBe(true);
    expect((error as Error).message).toContain(path);
    expect((error as Error).message).toMatch(RESULTS[file] as RegExp);
  });
});
