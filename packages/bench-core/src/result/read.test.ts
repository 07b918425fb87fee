import { mkdtemp, readFile, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { BenchmarkResult } from "../benchmark-result.js";
import { ConfigurationError } from "../errors.js";
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

/** Every score of `metric` as JSON.parse reads it from the file: a number, or NaN. */
function expectedColumn(raw: { samples: { scores: Record<string, unknown> }[] }, metric: string) {
  return raw.samples.map((s) => {
    const v = Object.hasOwn(s.scores, metric) ? s.scores[metric] : null;
    return typeof v === "number" ? v : Number.NaN;
  });
}

async function checkAgainstEager(path: string): Promise<BenchmarkResult> {
  const lazy = await BenchmarkResult.load(path, { lazy: true });
  const eager = await BenchmarkResult.load(path);
  const raw = JSON.parse(await readFile(path, "utf8"));
  expect(lazy.sampleCount).toBe(raw.samples.length);
  expect(lazy.sampleIds()).toEqual(raw.samples.map((s: { sample_id?: string }) => s.sample_id));
  for (const m of Object.keys(raw.higher_is_better)) {
    // Object.is: -0 and 0 differ, NaN equals NaN; values must be bit-exact.
    const column = Array.from(lazy.scoreColumn(m) as Float64Array);
    const expected = expectedColumn(raw, m);
    expect(column.length).toBe(expected.length);
    for (let i = 0; i < expected.length; i++) expect(Object.is(column[i], expected[i])).toBe(true);
  }
  expect(lazy.scoreColumn("no such metric")).toBeUndefined();
  expect(lazy.summary).toEqual(eager.summary);
  expect(lazy.status).toEqual(eager.status);
  expect(lazy.samples).toEqual(eager.samples);
  return lazy;
}

describe("BenchmarkResult.load(path, { lazy: true })", () => {
  it("reads ids and score columns exactly as a full load, then the records on demand", async () => {
    const path = nextPath();
    await resultOf(
      [
        sample({ sampleId: "q1", scores: { recall: 0.5, 'a"b': 1, __proto__x: 2 } }),
        sample({ sampleId: 'q"2', question: "with\nnewline", scores: { recall: null } }),
        sample({ sampleId: "ünï", scores: { recall: 1e-7, 'a"b': -0 } }),
        sample({ question: "no id", scores: { recall: 0.46927872602275644 } }),
        sample({ sampleId: "q5", status: "errored", scores: { recall: null }, error: "boom" }),
        sample({ sampleId: "q6", scores: { recall: 123456789012345680000, extra: 3 } }),
        sample({ sampleId: "q7", scores: { 'a"b': 0.1, recall: 2.5e-320 } }),
      ],
      { recall: true, 'a"b': true, __proto__x: false },
    ).save(path);
    const lazy = await checkAgainstEager(path);
    // Known values, independent of the parser: what the file's text says.
    expect(Array.from(lazy.scoreColumn("recall") as Float64Array)).toEqual([
      0.5,
      Number.NaN,
      1e-7,
      0.46927872602275644,
      Number.NaN,
      123456789012345680000,
      2.5e-320,
    ]);
    expect(lazy.sampleIds()).toEqual(["q1", 'q"2', "ünï", undefined, "q5", "q6", "q7"]);
  });

  it("handles a metric named __proto__ as data", async () => {
    const path = nextPath();
    const scores = JSON.parse('{"__proto__": 0.25}') as Record<string, number>;
    const hib = JSON.parse('{"__proto__": true}') as Record<string, boolean>;
    await resultOf([sample({ sampleId: "a", scores })], hib).save(path);
    const lazy = await checkAgainstEager(path);
    expect(Array.from(lazy.scoreColumn("__proto__") as Float64Array)).toEqual([0.25]);
  });

  it("handles zero samples, and a line longer than the read buffer", async () => {
    const empty = nextPath();
    await resultOf([], { m: true }).save(empty);
    expect((await checkAgainstEager(empty)).sampleCount).toBe(0);
    const long = nextPath();
    const big = "x".repeat(3 * 1024 * 1024);
    await resultOf(
      [
        sample({ sampleId: "a", scores: { m: 1 } }),
        sample({ sampleId: "b", answer: big, scores: { m: 0.75 } }),
        sample({ sampleId: "c", scores: { m: 0.25 } }),
      ],
      { m: true },
    ).save(long);
    const lazy = await checkAgainstEager(long);
    expect(Array.from(lazy.scoreColumn("m") as Float64Array)).toEqual([1, 0.75, 0.25]);
  });

  it("matches a full load on random results (property)", async () => {
    const score = fc.oneof(
      fc.constant(null),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.integer(),
      fc.constantFrom(0, 1, 0.1, 0.2, 1 / 3, 2 / 3, -0, 5e-324, 1.7976931348623157e308),
    );
    const metric = fc.constantFrom("recall@5", "mrr", "ndcg@10", 'we"ird', "é");
    const sampleArb = fc.record({
      sampleId: fc.option(fc.string({ unit: "grapheme", maxLength: 8 }), { nil: undefined }),
      question: fc.string({ unit: "grapheme", maxLength: 20 }),
      status: fc.constantFrom("successful" as const, "errored" as const, "incomplete" as const),
      scores: fc.dictionary(metric, score, { maxKeys: 5 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(sampleArb, { maxLength: 30 }), async (arbs) => {
        const seen = new Set<string>();
        const samples = arbs.map((a) => {
          // An errored sample has only null scores (a file saying otherwise is refused, below).
          const scores =
            a.status === "errored"
              ? Object.fromEntries(Object.keys(a.scores).map((k) => [k, null]))
              : a.scores;
          const s = sample({ question: a.question, status: a.status, scores });
          if (a.sampleId !== undefined && !seen.has(a.sampleId)) {
            seen.add(a.sampleId);
            return { ...s, sampleId: a.sampleId };
          }
          return s;
        });
        const path = nextPath();
        await resultOf(samples, {
          "recall@5": true,
          mrr: true,
          "ndcg@10": true,
          'we"ird': false,
        }).save(path);
        await checkAgainstEager(path);
      }),
      { numRuns: 60 },
    );
  });

  it("refuses, lazily and fully alike, a sample missing a field the format requires", async () => {
    const path = nextPath();
    await resultOf([sample({ sampleId: "a", scores: { m: 0.5 } })], { m: true }).save(path);
    const text = await readFile(path, "utf8");
    const line = text.split("\n").find((l) => l.startsWith('{"sample_id"')) as string;
    const fields: [string, string][] = [
      ["scores", "an object of metric → score"],
      ["retrieved", "an array of chunks { id, … } (format 2), or retrieved_ids (format 1)"],
    ];
    for (const [field, expected] of fields) {
      const record = JSON.parse(line);
      delete record[field];
      const p = nextPath();
      await writeFile(p, text.replace(line, JSON.stringify(record)));
      for (const lazy of [true, false]) {
        const error = await BenchmarkResult.load(p, { lazy }).catch((e: unknown) => e);
        expect(ConfigurationError.isInstance(error), `${field} ${lazy}`).toBe(true);
        expect((error as Error).message).toMatch(
          new RegExp(
            `^${p}: samples\\[0\\]( \\(line \\d+\\))?\\.${field}: missing, expected ${expected.replace(/[(){}]/g, "\\$&")}$`,
          ),
        );
      }
    }
    // A record without a status was refused already, and still is.
    const noStatus = nextPath();
    await writeFile(noStatus, text.replace(',"status":"successful"', ""));
    for (const lazy of [true, false]) {
      await expect(BenchmarkResult.load(noStatus, { lazy })).rejects.toThrow(
        /samples\[0\]( \(line \d+\))?\.status: expected a string, found undefined$/,
      );
    }
    // sample_id and attempts may be left out.
    const minimal = nextPath();
    await writeFile(minimal, text.replace('"sample_id":"a",', ""));
    expect((await checkAgainstEager(minimal)).sampleIds()).toEqual([undefined]);
    // The auxiliary fields may be left out too (a file made by another tool): they read as null.
    const sparse = nextPath();
    const record = JSON.parse(line);
    for (const field of ["answer", "retrieved_uris", "latency_ms", "error"]) delete record[field];
    await writeFile(sparse, text.replace(line, JSON.stringify(record)));
    // And retrieved_uris: null is as absent.
    const nullUris = nextPath();
    await writeFile(
      nullUris,
      text.replace(line, JSON.stringify({ ...record, retrieved_uris: null })),
    );
    for (const p of [sparse, nullUris]) {
      for (const lazy of [true, false]) {
        const loaded = await BenchmarkResult.load(p, { lazy });
        expect(loaded.samples[0]).toMatchObject({
          answer: null,
          retrievedIds: ["d1"],
          retrievedUris: [null],
          latencyMs: null,
          error: null,
        });
      }
    }
  });

  it("refuses, lazily and fully alike, retrieved_uris not aligned with retrieved_ids (format 1)", async () => {
    // A format-1 file written by main before format 2: sample q2 has 2 ids and 2 uris, q4 one.
    const path = nextPath();
    const v1 = await readFile(
      new URL("../__fixtures__/format1/engine.json", import.meta.url),
      "utf8",
    );
    await writeFile(path, v1);
    const text = await readFile(path, "utf8");
    const short = nextPath();
    await writeFile(
      short,
      text.replace(
        '"retrieved_uris":["https://ex.org/d2","https://ex.org/d2"]',
        '"retrieved_uris":["https://ex.org/d2"]',
      ),
    );
    const long = nextPath();
    await writeFile(
      long,
      text.replace(
        '"retrieved_uris":["https://ex.org/d1",null]',
        '"retrieved_uris":["u",null,null]',
      ),
    );
    expect(await readFile(short, "utf8")).not.toBe(text);
    expect(await readFile(long, "utf8")).not.toBe(text);
    for (const lazy of [true, false]) {
      await expect(BenchmarkResult.load(path, { lazy })).resolves.toBeDefined();
      await expect(BenchmarkResult.load(short, { lazy })).rejects.toThrow(
        /: samples\[1\]( \(line \d+\))?\.retrieved_uris: expected one entry per retrieved id \(2, null where a chunk has no uri\), found 1$/,
      );
      await expect(BenchmarkResult.load(long, { lazy })).rejects.toThrow(
        /: samples\[0\]( \(line \d+\))?\.retrieved_uris: expected one entry per retrieved id \(2, null where a chunk has no uri\), found 3$/,
      );
    }
  });

  it("refuses a bad score at load, naming the file and line", async () => {
    const path = nextPath();
    await resultOf(
      [sample({ sampleId: "a", scores: { m: 1 } }), sample({ sampleId: "b", scores: { m: 2 } })],
      { m: true },
    ).save(path);
    const text = await readFile(path, "utf8");
    await writeFile(path, text.replace('"m":2', '"m":"2"'));
    const error = await BenchmarkResult.load(path, { lazy: true }).catch((e: unknown) => e);
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain(path);
    expect((error as Error).message).toMatch(/samples\[1\] \(line \d+\)\.scores\["m"\]/);
    // Not valid JSON on a sample line.
    await writeFile(path, text.replace('"m":2', '"m":2,,'));
    await expect(BenchmarkResult.load(path, { lazy: true })).rejects.toThrow(/not valid JSON/);
  });

  it("refuses a truncated file at load", async () => {
    const path = nextPath();
    await resultOf(
      [sample({ sampleId: "a", scores: { m: 1 } }), sample({ sampleId: "b", scores: { m: 2 } })],
      { m: true },
    ).save(path);
    const text = await readFile(path, "utf8");
    await writeFile(path, text.slice(0, text.lastIndexOf("]}")));
    const error = await BenchmarkResult.load(path, { lazy: true }).catch((e: unknown) => e);
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/truncated|not valid JSON/);
  });

  it("refuses a bad answer at load, naming the line, as a full load does", async () => {
    const path = nextPath();
    await resultOf(
      [
        sample({ sampleId: "a", scores: { m: 1 } }),
        sample({ sampleId: "b", answer: "bee", scores: { m: 2 } }),
      ],
      { m: true },
    ).save(path);
    const text = await readFile(path, "utf8");
    await writeFile(path, text.replace('"answer":"bee"', '"answer":7'));
    await expect(BenchmarkResult.load(path)).rejects.toThrow(/samples\[1\]\.answer/);
    const error = await BenchmarkResult.load(path, { lazy: true }).catch((e: unknown) => e);
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/samples\[1\] \(line \d+\)\.answer/);
  });

  // Files a reviewer built by hand: each must load lazily exactly as in full, or be refused by both.
  const REST = '"retrieved_ids":["d1"],"retrieved_uris":[null],"latency_ms":1.5,"error":null';
  const ONE = `{"sample_id":"a","question":"q","status":"successful","scores":{"m":0.5},"answer":null,${REST}}`;
  const TWO = `{"sample_id":"b","question":"q","status":"successful","scores":{"m":0.25},"answer":null,${REST}}`;
  const oddFiles: [string, (header: string) => string][] = [
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
  it.each(oddFiles)("agrees with a full load: %s", async (_name, build) => {
    const template = nextPath();
    await resultOf([sample({ sampleId: "a", scores: { m: 0.5 } })], { m: true }).save(template);
    const text = await readFile(template, "utf8");
    const header = text.slice(0, text.indexOf(' "samples": [\n') + ' "samples": [\n'.length);
    const path = nextPath();
    const body = build(header);
    expect(body).not.toBe(`${header}${ONE}\n]}\n`); // the change applied
    await writeFile(path, body);
    const eager = await BenchmarkResult.load(path).catch((e: unknown) => e);
    if (eager instanceof BenchmarkResult) {
      await checkAgainstEager(path);
    } else {
      expect(ConfigurationError.isInstance(eager)).toBe(true);
      const lazy = await BenchmarkResult.load(path, { lazy: true }).catch((e: unknown) => e);
      expect(ConfigurationError.isInstance(lazy)).toBe(true);
    }
  });

  it("refuses to read the records of a file that changed after the load", async () => {
    const path = nextPath();
    await resultOf([sample({ sampleId: "a", scores: { m: 1 } })], { m: true }).save(path);
    const lazy = await BenchmarkResult.load(path, { lazy: true });
    await resultOf([sample({ sampleId: "zz", scores: { m: 0 } })], { m: true }).save(path);
    await utimes(path, new Date(), new Date(Date.now() + 5000));
    expect(() => lazy.samples).toThrow(/changed after it was loaded/);
  });

  it("reads a file in another layout (pretty-printed) in full", async () => {
    const path = nextPath();
    const r = resultOf(
      [
        sample({ sampleId: "a", scores: { m: 0.5 } }),
        sample({ sampleId: "b", scores: { m: null } }),
      ],
      { m: true },
    );
    await writeFile(path, JSON.stringify(r.toJSON(), null, 2));
    const lazy = await checkAgainstEager(path);
    expect(Array.from(lazy.scoreColumn("m") as Float64Array)).toEqual([0.5, Number.NaN]);
  });

  it("refuses invalid UTF-8 as a full load does, naming the line", async () => {
    const path = nextPath();
    await resultOf([sample({ sampleId: "a", question: "é", scores: { m: 1 } })], { m: true }).save(
      path,
    );
    const bytes = await readFile(path);
    const at = bytes.indexOf(Buffer.from("é"));
    bytes[at + 1] = 0x41; // a lead byte without its continuation
    await writeFile(path, bytes);
    const error = await BenchmarkResult.load(path, { lazy: true }).catch((e: unknown) => e);
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/invalid UTF-8/);
  });

  it("keeps the eager default: samples are there without reading the file again", async () => {
    const path = nextPath();
    await resultOf([sample({ sampleId: "a", scores: { m: 1 } })], { m: true }).save(path);
    const eager = await BenchmarkResult.load(path);
    await writeFile(path, "gone");
    expect(eager.samples).toHaveLength(1);
    expect(eager.sampleIds()).toEqual(["a"]);
    expect(Array.from(eager.scoreColumn("m") as Float64Array)).toEqual([1]);
  });
});
