import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { BenchmarkResult } from "../benchmark-result.js";
import type { SampleResult } from "../types.js";

let dir: string;
let fileNo = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "fastrag-lazy-"));
});
const nextPath = (): string => join(dir, `r${fileNo++}.json`);

function sample(overrides: Partial<SampleResult>): SampleResult {
  return {
    question: "q",
    status: "successful",
    scores: {},
    answer: "a",
    retrievedIds: ["d1"],
    retrievedUris: [null],
    latencyMs: 1.5,
    error: null,
    ...overrides,
  };
}

function resultOf(
  samples: SampleResult[],
  higherIsBetter: Record<string, boolean>,
): BenchmarkResult {
  return new BenchmarkResult({
    name: "lazy",
    createdAt: new Date("2025-01-02T03:04:05.000Z"),
    durationS: 1,
    samples,
    higherIsBetter,
  });
}

describe("BenchmarkResult.load(path, { lazy: true })", () => {
  it("refuses, lazily and fully alike, an errored sample with a score and wrong status counts", async () => {
    const path = nextPath();
    await resultOf(
      [
        sample({ sampleId: "a", scores: { m: 1 } }),
        sample({ sampleId: "b", status: "errored", scores: { m: null }, error: "boom" }),
      ],
      { m: true },
    ).save(path);
    const text = await readFile(path, "utf8");
    const scored = nextPath();
    await writeFile(scored, text.replace('"m":null', '"m":0'));
    const counts = nextPath();
    await writeFile(counts, text.replace('"successful": 1', '"successful": 2'));
    expect(text).toContain('"successful": 1');
    for (const lazy of [true, false]) {
      await expect(BenchmarkResult.load(scored, { lazy })).rejects.toThrow(`${scored}: samples[1]`);
      await expect(BenchmarkResult.load(scored, { lazy })).rejects.toThrow(
        /\.scores\["m"\]: an errored sample has no scores \(every one is null: a failure is never scored\), found the number 0$/,
      );
      await expect(BenchmarkResult.load(counts, { lazy })).rejects.toThrow(
        `${counts}: status.successful: the header counts 2 but the samples hold 1 (successful 1, incomplete 0, errored 1)`,
      );
    }
  });

  it("refuses, lazily and fully alike, a summary left stale after the scores were edited", async () => {
    const path = nextPath();
    await resultOf(
      [
        sample({ sampleId: "a", scores: { m: 0.25 } }),
        sample({ sampleId: "b", scores: { m: 0.75 } }),
        sample({ sampleId: "c", status: "incomplete", scores: { m: null } }),
      ],
      { m: true },
    ).save(path);
    const text = await readFile(path, "utf8");
    // Scores rescored by hand (jq, a notebook), the summary not: mean 0.5, min 0.25, max 0.75, count 2.
    const rescored = nextPath();
    await writeFile(rescored, text.replace('"m":0.25', '"m":1').replace('"m":0.75', '"m":1'));
    const recounted = nextPath();
    await writeFile(recounted, text.replace('"m":null', '"m":0.5'));
    const minOnly = nextPath();
    await writeFile(minOnly, text.replace('"m":0.25', '"m":0.2'));
    for (const lazy of [true, false]) {
      await expect(BenchmarkResult.load(path, { lazy })).resolves.toBeDefined();
      await expect(BenchmarkResult.load(rescored, { lazy })).rejects.toThrow(
        `${rescored}: summary["m"].min (0.25, the scores' 1) does not match the samples' scores`,
      );
      await expect(BenchmarkResult.load(recounted, { lazy })).rejects.toThrow(
        `${recounted}: summary["m"].count is 2, but 3 samples have a score for it`,
      );
      await expect(BenchmarkResult.load(minOnly, { lazy })).rejects.toThrow(/summary\["m"\]\.min/);
    }
    // A summary that lacks a metric the samples score would print "—" for real scores.
    const dropped = nextPath();
    const summaryStart = text.indexOf('"summary": {');
    let depth = 0;
    let summaryEnd = text.indexOf("{", summaryStart);
    do {
      const c = text[summaryEnd++];
      if (c === "{") depth++;
      else if (c === "}") depth--;
    } while (depth > 0);
    await writeFile(
      dropped,
      `${text.slice(0, summaryStart)}"summary": {}${text.slice(summaryEnd)}`,
    );
    for (const lazy of [true, false]) {
      await expect(BenchmarkResult.load(dropped, { lazy })).rejects.toThrow(
        `${dropped}: summary has no entry for "m", but samples score it (sample 1)`,
      );
    }
    // A mean another tool summed in another order (a few ulps off) is no contradiction.
    const ulps = nextPath();
    await writeFile(ulps, text.replace('"mean": 0.5', '"mean": 0.5000000000000001'));
    expect(text).toContain('"mean": 0.5');
    for (const lazy of [true, false]) {
      await expect(BenchmarkResult.load(ulps, { lazy })).resolves.toBeDefined();
    }
  });

  it("refuses, lazily and fully alike, summary statistics that contradict the count or the scores", async () => {
    const path = nextPath();
    await resultOf(
      [
        sample({ sampleId: "a", scores: { m: 0.000001, n: null } }),
        sample({ sampleId: "b", scores: { m: 0.000003, n: null } }),
      ],
      { m: true, n: true },
    ).save(path);
    const text = await readFile(path, "utf8");
    // What save wrote: n scored by nobody has count 0 and null statistics; m's mean is 2e-6.
    expect(text).toContain('"n": {\n   "count": 0,\n   "mean": null,');
    expect(text).toContain('"mean": 0.000002,');
    const edit = async (from: string, to: string): Promise<string> => {
      const p = nextPath();
      expect(text).toContain(from);
      await writeFile(p, text.replace(from, to));
      return p;
    };
    // n with count 0 but zeros for statistics: a metric nobody scored shown as scoring 0.
    const zeros = await edit(
      '"count": 0,\n   "mean": null,\n   "std": null',
      '"count": 0,\n   "mean": 0,\n   "std": 0',
    );
    // m scored twice, but its mean says nothing.
    const nullMean = await edit('"mean": 0.000002,', '"mean": null,');
    // Off by 1e-10: nothing for scores near 1, but 5e-5 of these scores.
    const stale = await edit('"mean": 0.000002,', '"mean": 0.0000020001,');
    // Off by 2e-13 of it, as another summation order may leave it: accepted.
    const ulps = await edit('"mean": 0.000002,', '"mean": 0.0000020000000000004,');
    for (const lazy of [true, false]) {
      await expect(BenchmarkResult.load(path, { lazy })).resolves.toBeDefined();
      await expect(BenchmarkResult.load(ulps, { lazy })).resolves.toBeDefined();
      await expect(BenchmarkResult.load(zeros, { lazy })).rejects.toThrow(
        `${zeros}: summary["n"].mean is 0, but its count is 0: a metric that no sample scored has null statistics, never numbers`,
      );
      await expect(BenchmarkResult.load(nullMean, { lazy })).rejects.toThrow(
        `${nullMean}: summary["m"].mean is null, but 2 samples have a score for it`,
      );
      await expect(BenchmarkResult.load(stale, { lazy })).rejects.toThrow(
        `${stale}: summary["m"].mean (0.0000020001, the scores' 0.000002) does not match the samples' scores`,
      );
    }
  });

  // Files a reviewer built by hand: each must load lazily exactly as in full, or be refused by both.
  const REST = '"retrieved_ids":["d1"],"retrieved_uris":[null],"latency_ms":1.5,"error":null';
  const ONE = `{"sample_id":"a","question":"q","status":"successful","scores":{"m":0.5},"answer":null,${REST}}`;
  const TWO = `{"sample_id":"b","question":"q","status":"successful","scores":{"m":0.25},"answer":null,${REST}}`;
  const _oddFiles: [string, (header: string) => string][] = [
    ["two samples on one line", (h) => `${h}${ONE},${TWO}\n]}\n`],
    [
      "sample_id after the scores",
      (h) =>
        `${h}${ONE.replace('"sample_id":"a",', "").replace('"answer":null', '"answer":null,"sample_id":"late"')}\n]}\n`,
    ],
    [
      "sample_id twice",
      (h) => `${h}${ONE.replace('"answer":null', '"answer":null,"sample_id":"b"')}\n]}\n`,
    ],
    [
      "scores twice",
      (h) => `${h}${ONE.replace('"answer":null', '"answer":null,"scores":{"m":0.9}')}\n]}\n`,
    ],
    [
      "a bad status after the scores",
      (h) => `${h}${ONE.replace('"answer":null', '"answer":null,"status":"bogus"')}\n]}\n`,
    ],
    ["a sample over two lines", (h) => `${h}${ONE.replace(',"answer"', ',\n"answer"')}\n]}\n`],
    ["]} on the last sample's line", (h) => `${h}${ONE}]}`],
    ["]} on the last sample's line, newline", (h) => `${h}${ONE}]}\n`],
    [
      "an invalid literal after the scores",
      (h) => `${h}${ONE.replace('"answer":null', '"answer":nul')}\n]}\n`,
    ],
    ["a raw tab in the question", (h) => `${h}${ONE.replace('"q"', '"q\tq"')}\n]}\n`],
    ["an escape in the question", (h) => `${h}${ONE.replace('"q"', '"q\\u00e9\\n"')}\n]}\n`],
    [
      "an unknown field holding JSON",
      (h) =>
        `${h}${ONE.replace('"answer":null', '"answer":null,"x":{"y":[1,true,false,null,"s",-2.5e3]}')}\n]}\n`,
    ],
    [
      "a bad unknown field",
      (h) => `${h}${ONE.replace('"answer":null', '"answer":null,"x":[1,]')}\n]}\n`,
    ],
    [
      "attempts 2",
      (h) => `${h}${ONE.replace('"answer":null', '"answer":null,"attempts":2')}\n]}\n`,
    ],
    [
      "attempts -1",
      (h) => `${h}${ONE.replace('"answer":null', '"answer":null,"attempts":-1')}\n]}\n`,
    ],
    [
      "a number split over header lines",
      (h) => `${h.replace('"duration_s": 1,', '"duration_s": 1\n5,')}${ONE}\n]}\n`,
    ],
    [
      "a header without its last comma",
      (h) => `${h.replace(/,\n "samples": \[\n$/, '\n "samples": [\n')}${ONE}\n]}\n`,
    ],
    [
      "a raw newline in the name",
      (h) => `${h.replace('"name": "lazy"', '"name": "la\nzy"')}${ONE}\n]}\n`,
    ],
    ["trailing garbage", (h) => `${h}${ONE}\n]}\nx\n`],
    ["CRLF", (h) => `${h}${ONE}\n]}\n`.replaceAll("\n", "\r\n")],
  ];
});
