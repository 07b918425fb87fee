import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { Benchmark } from "../benchmark.js";
import { BenchmarkResult } from "../benchmark-result.js";
import type { EvalSample, Metric, QueryEngine } from "../types.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "fastrag-results-"));
});

const samples: EvalSample[] = Array.from({ length: 6 }, (_, i) => ({
  id: `q${i}`,
  question: `question ${i} "quoted" ünïcode`,
  expectedAnswers: [`a${i}`],
  relevantIds: [`d${i}`],
}));

const exact: Metric = {
  name: "exact_match",
  higherIsBetter: true,
  needsRelevantIds: false,
  needsAnswer: true,
  score: ({ sample, answer }) => {
    // q2's metric fails (an incomplete sample, with its reason); a plain null would not.
    if (sample.id === "q2") throw new Error("judge unreachable");
    return answer === sample.expectedAnswers[0] ? 1 : 0;
  },
};
const latency: Metric = {
  name: "latency_ms",
  higherIsBetter: false,
  needsRelevantIds: false,
  needsAnswer: false,
  score: ({ latencyMs }) => latencyMs,
};
const engine: QueryEngine = {
  async query(_q, { sample }) {
    if (sample.id === "q4") throw new Error("boom");
    return {
      answer: sample.id === "q1" ? "wrong" : (sample.expectedAnswers[0] as string),
      chunks: [{ id: "d0" }],
    };
  },
};

async function sampleResult(): Promise<BenchmarkResult> {
  return new Benchmark({ dataset: samples, metrics: [exact, latency] }).run(engine, {
    name: "run-a",
  });
}

describe("BenchmarkResult save/load", () => {
  it("round-trips arbitrary sample records", async () => {
    const sampleArb = fc.record({
      sampleId: fc.option(fc.string(), { nil: undefined }),
      question: fc.string(),
      status: fc.constantFrom("successful" as const, "incomplete" as const, "errored" as const),
      scores: fc.dictionary(
        fc.constantFrom("m1", "m2"),
        fc.option(fc.double({ noNaN: true, noDefaultInfinity: true })),
      ),
      answer: fc.option(fc.string()),
      // One uri (or null) per retrieved id: load refuses a file where they are not aligned.
      retrieved: fc.array(fc.tuple(fc.string(), fc.option(fc.string()))),
      latencyMs: fc.option(fc.double({ min: 0, max: 1e6, noNaN: true })),
      error: fc.option(fc.string()),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(sampleArb, { maxLength: 20 }), async (raw) => {
        const recs = raw.map(({ sampleId, retrieved, ...fields }) => {
          const rest = {
            ...fields,
            retrievedIds: retrieved.map(([id]) => id),
            retrievedUris: retrieved.map(([, uri]) => uri),
          };
          // An errored sample's scores are all null (load refuses a file saying otherwise).
          const fixed =
            rest.status === "errored"
              ? {
                  ...rest,
                  scores: Object.fromEntries(Object.keys(rest.scores).map((k) => [k, null])),
                }
              : rest;
          return sampleId === undefined ? fixed : { sampleId, ...fixed };
        });
        const r = new BenchmarkResult({
          name: "p",
          createdAt: new Date(0),
          durationS: 1,
          samples: recs,
          higherIsBetter: { m1: true, m2: false },
        });
        const path = join(dir, "prop.json");
        await r.save(path);
        const back = await BenchmarkResult.load(path);
        expect(back.toJSON()).toEqual(JSON.parse(JSON.stringify(r.toJSON())));
      }),
      { numRuns: 30 },
    );
  });

  const _corrupt: [string, string, RegExp][] = [
    ["empty.json", "", /not valid JSON \(the file is empty\)/],
    ["trunc.json", "", /not valid JSON, truncated/],
    ["array.json", "[1, 2]", /top level: expected an object, found an array/],
    [
      "trailing-comma.json",
      '{\n  "format": "fastrag-bench-result/1",\n}',
      /trailing-comma\.json: line 3, column 1: not valid JSON at "}"/,
    ],
    [
      "emoji.json",
      '{\n  "name": "g😀😀d" "x": 1\n}',
      /emoji\.json: line 2, column 18: not valid JSON at "\\"x\\"/,
    ],
    ["dataset.json", '{"samples": [{"question": "q"}]}', /format: expected a string/],
    ["other.json", '{"name": "x"}', /not a fastrag bench result.*"name"/],
    [
      "future.json",
      '{"format": "fastrag-bench-result/3", "samples": []}',
      /not supported by this version/,
    ],
    ["alien.json", '{"format": "promptfoo/3", "samples": []}', /format is "promptfoo\/3"/],
  ];

  it("names the offending field of a malformed sample", async () => {
    const good = (await sampleResult()).toJSON();
    const bad = { ...good, samples: [...good.samples] };
    bad.samples[3] = { ...good.samples[3], scores: { exact_match: "1" } } as never;
    const path = join(dir, "badfield.json");
    await writeFile(path, JSON.stringify(bad));
    await expect(BenchmarkResult.load(path)).rejects.toThrow(
      /samples\[3\]\.scores\["exact_match"\]: expected a finite number or null, found the string "1"/,
    );
    await expect(BenchmarkResult.load(join(dir, "missing.json"))).rejects.toThrow(/no such file/);
  });
});
