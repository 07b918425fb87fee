import { mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { Benchmark } from "../benchmark.js";
import { ConfigurationError } from "../errors.js";
import type { EvalSample, Metric } from "../types.js";

// The bad-input corpus: every file under __fixtures__/bad must give a ConfigurationError that
// names the file and where in it the problem is. A file without an expectation here fails the
// test, so the corpus and its expectations cannot drift apart.
const bad = fileURLToPath(new URL("../__fixtures__/bad/", import.meta.url));

const JOURNALS: Record<string, RegExp> = {
  "bad-sample.jsonl":
    /line 2: sample\.scores\["m"\]: expected a finite number or null, found an array/,
  "bom-crlf-bad-entry.jsonl": /line 2: sample: expected an object, found undefined/,
  "huge-number.jsonl": /line 2: sample\.latency_ms: expected a finite number or null/,
  "index-out-of-range.jsonl": /:2: sample index 99 is outside the dataset \(0\.\.2\)/,
  "not-a-journal.jsonl": /:1: not a fastrag bench checkpoint journal/,
  "other-dataset.jsonl": /belongs to another run: dataset differs/,
  "other-metrics.jsonl": /belongs to another run: metrics differ/,
  "wrong-types.jsonl": /:2: expected a journal entry \{"index", "sample"\}/,
  "wrong-version.jsonl": /:1: not a fastrag bench checkpoint journal/,
};

const samples: EvalSample[] = [0, 1, 2].map((i) => ({
  id: `q${i}`,
  question: `question ${i}`,
  expectedAnswers: [`a${i}`],
  relevantIds: [`d${i}`],
}));
const metric: Metric = {
  name: "m",
  higherIsBetter: true,
  needsRelevantIds: false,
  needsAnswer: false,
  score: () => 1,
};

// Torn lines are no bad input: a resume drops each with a warning naming its sample, runs that
// sample again, and keeps every other line.
const TORN: Record<string, string> = {
  "broken-middle-line.jsonl":
    ':2: dropped a line cut short by a failed or interrupted write (17 bytes); it held sample index 0 (id "q0"), which runs again',
  "invalid-utf8.jsonl":
    ':2: dropped a line cut short by a failed or interrupted write (205 bytes); it held sample index 0 (id "q0"), which runs again',
};

describe("torn checkpoint journals", async () => {
  const torn = fileURLToPath(new URL("../__fixtures__/journals/torn/", import.meta.url));
  const files = (await readdir(torn)).sort();
  it("has an expectation for every file", () => {
    expect(files).toEqual(Object.keys(TORN).sort());
  });
  it.each(files)("%s → resumed, the torn line's sample run again, with a warning", async (file) => {
    const dir = await mkdtemp(join(tmpdir(), "fastrag-torn-journal-"));
    const path = join(dir, file);
    const fingerprint = new Benchmark({ dataset: samples, metrics: [metric] }).fingerprint;
    const raw = await readFile(join(torn, file));
    await writeFile(
      path,
      Buffer.from(raw.toString("latin1").replace("__FINGERPRINT__", fingerprint), "latin1"),
    );
    const calls: string[] = [];
    const warnings: string[] = [];
    const result = await new Benchmark({ dataset: samples, metrics: [metric] }).run(
      {
        query: async (_q, { sample }) => {
          calls.push(sample.id as string);
          return { answer: "a" };
        },
      },
      { name: "bad", checkpoint: path, onWarning: (m) => warnings.push(m) },
    );
    expect(calls.sort()).toEqual(["q0", "q2"]);
    expect(result.samples.map((s) => s.sampleId)).toEqual(["q0", "q1", "q2"]);
    expect(warnings).toEqual([`${path}${TORN[file]}`]);
  });
});

describe("bad checkpoint journals", async () => {
  const files = (await readdir(join(bad, "journals"))).sort();
  it("has an expectation for every file in the corpus", () => {
    expect(files).toEqual(Object.keys(JOURNALS).sort());
  });
  it.each(files)("%s → ConfigurationError naming the file and the line", async (file) => {
    const dir = await mkdtemp(join(tmpdir(), "fastrag-bad-journal-"));
    const path = join(dir, file);
    // The corpus holds __FINGERPRINT__ where a header names the dataset, so that only what each
    // file means to break is wrong in it.
    const raw = await readFile(join(bad, "journals", file));
    const fingerprint = new Benchmark({ dataset: samples, metrics: [metric] }).fingerprint;
    await writeFile(
      path,
      Buffer.from(raw.toString("latin1").replace("__FINGERPRINT__", fingerprint), "latin1"),
    );
    let calls = 0;
    const error = await new Benchmark({ dataset: samples, metrics: [metric] })
      .run(
        {
          query: async () => {
            calls++;
            return { answer: "a" };
          },
        },
        { name: "bad", checkpoint: path },
      )
      .catch((e: unknown) => e);
    expect(ConfigurationError.isInstance(error), String(error)).toBe(true);
    expect((error as Error).message).toContain(path);
    expect((error as Error).message).toMatch(JOURNALS[file] as RegExp);
    // Raised before any sample runs: nothing is lost or redone.
    expect(calls).toBe(0);
  });
});
