import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { Benchmark } from "./benchmark.js";
import { BenchmarkResult } from "./benchmark-result.js";
import { ConfigurationError } from "./errors.js";
import { RESULT_FORMAT } from "./result/codec.js";
import type { EvalSample, Metric, QueryEngine } from "./types.js";

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
  it("round-trips to an equal object in the snake_case format", async () => {
    const result = await sampleResult();
    const path = join(dir, "nested", "deeper", "a.json");
    await result.save(path);
    const raw = JSON.parse(await readFile(path, "utf8"));
    expect(raw.format).toBe(RESULT_FORMAT);
    expect(Object.keys(raw)).toEqual([
      "format",
      "name",
      "created_at",
      "duration_s",
      "status",
      "summary",
      "higher_is_better",
      "dataset",
      "keep_chunk_text",
      "samples",
    ]);
    expect(raw.status).toEqual({ successful: 4, errored: 1, incomplete: 1 });
    expect(raw.higher_is_better).toEqual({ exact_match: true, latency_ms: false });
    expect(Object.keys(raw.samples[0])).toEqual([
      "sample_id",
      "question",
      "status",
      "scores",
      "answer",
      "retrieved",
      "latency_ms",
      "error",
      "expected_answers",
      "relevant_ids",
    ]);
    expect(raw.samples[4]).toMatchObject({
      status: "errored",
      error: "boom",
      scores: { exact_match: null },
    });

    const loaded = await BenchmarkResult.load(path);
    expect(loaded).toEqual(result);
    // `samples` is an accessor (a lazy load reads it on demand), which toEqual does not visit.
    expect(loaded.samples).toEqual(result.samples);
    expect(loaded.samples).toHaveLength(6);
    expect(loaded.createdAt).toBeInstanceOf(Date);
    expect(loaded.summary.exact_match).toMatchObject({ count: 4, mean: 0.75 });
  });

  it("leaves no temporary file behind", async () => {
    const result = await sampleResult();
    const sub = join(dir, "clean");
    await result.save(join(sub, "r.json"));
    await result.save(join(sub, "r.json"));
    expect(await readdir(sub)).toEqual(["r.json"]);
  });

  it("reports a path it cannot write as a ConfigurationError naming it", async () => {
    const result = await sampleResult();
    const file = join(dir, "plain-file");
    await writeFile(file, "");
    const under = join(file, "r.json");
    const error = await result.save(under).catch((e: unknown) => e);
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /plain-file\/r\.json: cannot write the file: a parent of it is a file, not a directory \((EEXIST|ENOTDIR)\)$/,
    );
    expect((error as Error).message.startsWith(under)).toBe(true);
    const clean = join(dir, "clean");
    await expect(result.save(clean)).rejects.toThrow(
      /clean: cannot write the file: it is a directory/,
    );
    expect(await readdir(clean)).toEqual(["r.json"]);
  });

  it("creates missing parent directories, and fails (never spins) where none can be made", async () => {
    const result = await sampleResult();
    const deep = join(dir, "a", "b", "c", "r.json");
    await result.save(deep);
    expect(await readdir(join(dir, "a", "b", "c"))).toEqual(["r.json"]);
    // Under /proc, Node's own recursive mkdir retries forever at full CPU.
    if (existsSync("/proc/self")) {
      const error = await result
        .save("/proc/fastrag-no-such-dir/x/r.json")
        .catch((e: unknown) => e);
      expect(ConfigurationError.isInstance(error)).toBe(true);
      expect((error as Error).message).toMatch(
        /^\/proc\/fastrag-no-such-dir\/x\/r\.json: cannot write the file/,
      );
    }
  }, 10_000);

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

  const corrupt: [string, string, RegExp][] = [
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
  it.each(corrupt)(
    "rejects %s with a ConfigurationError naming the file",
    async (file, content, pattern) => {
      const path = join(dir, file);
      if (file === "trunc.json") {
        const full = JSON.stringify((await sampleResult()).toJSON());
        await writeFile(path, full.slice(0, Math.floor(full.length / 2)));
      } else {
        await writeFile(path, content);
      }
      const error = await BenchmarkResult.load(path).catch((e: unknown) => e);
      expect(ConfigurationError.isInstance(error)).toBe(true);
      expect((error as Error).message).toContain(path);
      expect((error as Error).message).toMatch(pattern);
    },
  );

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

describe("BenchmarkResult created_at", () => {
  const withDate = (createdAt: string): string =>
    JSON.stringify({
      format: RESULT_FORMAT,
      name: "d",
      created_at: createdAt,
      duration_s: 1,
      status: { successful: 0, errored: 0, incomplete: 0 },
      summary: {},
      higher_is_better: {},
      samples: [],
    });

  it("reads ISO-8601 as save and Python's isoformat() write it, a missing zone as UTC", () => {
    const tz = process.env.TZ;
    // Far from UTC, so that reading a zone-less time as local time would show.
    process.env.TZ = "America/New_York";
    try {
      // The zone took effect: a local 09:30 is 14:30 UTC here.
      expect(new Date(2026, 11, 2, 9, 30).toISOString()).toBe("2026-12-02T14:30:00.000Z");
      for (const [text, iso] of [
        ["2026-12-02T09:30:00.000Z", "2026-12-02T09:30:00.000Z"],
        // Python: datetime.now(timezone.utc).isoformat(), and an aware one elsewhere.
        ["2026-12-02T09:30:00.123456+00:00", "2026-12-02T09:30:00.123Z"],
        ["2026-12-02T10:30:00+01:00", "2026-12-02T09:30:00.000Z"],
        ["2026-12-02T04:00:00-0530", "2026-12-02T09:30:00.000Z"],
        // Python: datetime.utcnow().isoformat() and str(datetime), naive: read as UTC.
        ["2026-12-02T09:30:00", "2026-12-02T09:30:00.000Z"],
        ["2026-12-02T09:30:00.5", "2026-12-02T09:30:00.500Z"],
        ["2026-12-02 09:30:00", "2026-12-02T09:30:00.000Z"],
        ["2026-12-02T09:30", "2026-12-02T09:30:00.000Z"],
        // Python: isoformat(timespec="hours"), and offsets with seconds (zoneinfo's local mean
        // time before 1900, or a timedelta offset).
        ["2026-12-02T10+01:00", "2026-12-02T09:00:00.000Z"],
        ["1850-01-02T03:04:05+00:19:32", "1850-01-02T02:44:33.000Z"],
        ["2026-12-02T09:30:00-00:00:01.5", "2026-12-02T09:30:01.500Z"],
        // A date alone: midnight UTC.
        ["2026-12-02", "2026-12-02T00:00:00.000Z"],
        ["2024-02-29T00:00:00Z", "2024-02-29T00:00:00.000Z"],
        // Years that toISOString writes with six digits, and the years 0–99 (not 1900–1999).
        ["+010000-01-01T00:00:00.000Z", "+010000-01-01T00:00:00.000Z"],
        ["0099-12-31T23:59:59.999Z", "0099-12-31T23:59:59.999Z"],
      ] as const) {
        expect(BenchmarkResult.parse(withDate(text), "d.json").createdAt.toISOString(), text).toBe(
          iso,
        );
      }
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
  });

  it("refuses an impossible date instead of rolling it over, and free text", () => {
    for (const [text, why] of [
      ["2026-02-31T00:00:00Z", ", whose day 31 does not exist (February 2026 has 28 days)"],
      ["2025-02-29", ", whose day 29 does not exist (February 2025 has 28 days)"],
      ["2026-04-31T12:00:00", ", whose day 31 does not exist (April 2026 has 30 days)"],
      ["2026-13-01T00:00:00Z", ", whose month 13 does not exist (01–12)"],
      ["2026-01-01T24:00:00Z", ", whose hour 24 does not exist (00–23)"],
      ["2026-01-01T10:60:00Z", ", whose minute 60 does not exist (00–59)"],
      ["2026-01-01T10:00:60Z", ", whose second 60 does not exist (00–59)"],
      ["2026-01-01T10:00:00+24:00", ", whose zone offset +24:00 does not exist"],
      ["Jan 1 2026", ""],
      ["2026/01/01", ""],
      ["", ""],
    ] as const) {
      expect(() => BenchmarkResult.parse(withDate(text), "d.json"), text).toThrow(
        new ConfigurationError(
          `d.json: created_at: expected an ISO-8601 date, found ${JSON.stringify(text)}${why}`,
          { kind: "invalid-input", path: "d.json", field: "created_at" },
        ),
      );
    }
  });
});

describe("BenchmarkResult.save of what JSON cannot hold", () => {
  it("refuses a cycle with a ConfigurationError naming the field, leaving nothing behind", async () => {
    const good = await sampleResult();
    const sub = join(dir, "cyclic");
    const path = join(sub, "r.json");
    await good.save(path);
    const before = await readFile(path, "utf8");
    const loop: Record<string, unknown> = { text: "x" };
    loop.self = loop;
    const samples = [...good.samples];
    samples[3] = { ...(samples[3] as (typeof samples)[number]), answer: loop as never };
    const cyclicAnswer = new BenchmarkResult({
      name: "c",
      createdAt: new Date(0),
      durationS: 1,
      samples,
      higherIsBetter: good.higherIsBetter,
    });
    const error = await cyclicAnswer.save(path).catch((e: unknown) => e);
    expect(ConfigurationError.isInstance(error), String(error)).toBe(true);
    expect((error as Error).message).toBe(
      `${path}: cannot save the result: samples[3].answer.self cannot be written as JSON (Converting circular structure to JSON); results hold plain data only`,
    );
    // A summary object carrying a link back to itself, and a BigInt score.
    const summary = { ...(good.summary.exact_match as object), parent: null as unknown };
    summary.parent = summary;
    const cyclicSummary = new BenchmarkResult({
      name: "c",
      createdAt: new Date(0),
      durationS: 1,
      samples: good.samples,
      higherIsBetter: good.higherIsBetter,
      summary: { ...good.summary, exact_match: summary as never },
    });
    await expect(cyclicSummary.save(path)).rejects.toThrow(
      new ConfigurationError(
        `${path}: cannot save the result: summary.exact_match.parent cannot be written as JSON (Converting circular structure to JSON); results hold plain data only`,
        { kind: "invalid-input", path, field: "summary.exact_match.parent" },
      ),
    );
    samples[3] = { ...(good.samples[3] as (typeof samples)[number]), scores: { m: 1n as never } };
    const bigint = new BenchmarkResult({
      name: "c",
      createdAt: new Date(0),
      durationS: 1,
      samples,
      higherIsBetter: good.higherIsBetter,
    });
    await expect(bigint.save(path)).rejects.toThrow(
      /: cannot save the result: samples\[3\]\.scores\.m cannot be written as JSON \(Do not know how to serialize a BigInt\)/,
    );
    // No temporary file, and the file saved before is as it was.
    expect(await readdir(sub)).toEqual(["r.json"]);
    expect(await readFile(path, "utf8")).toBe(before);
  });

  it("refuses an Invalid Date or a duration that load would refuse when the result is made", () => {
    const init = {
      name: "r",
      createdAt: new Date(0),
      durationS: 1,
      samples: [],
      higherIsBetter: {},
    };
    expect(() => new BenchmarkResult({ ...init, createdAt: new Date("2026-02-31x") })).toThrow(
      new ConfigurationError(
        "BenchmarkResult: createdAt must be a valid Date, found an Invalid Date",
        { kind: "invalid-option", option: "createdAt" },
      ),
    );
    for (const [durationS, found] of [
      [Number.NaN, "the number NaN"],
      [-1, "the number -1"],
      [Number.POSITIVE_INFINITY, "the number Infinity"],
    ] as const) {
      expect(() => new BenchmarkResult({ ...init, durationS })).toThrow(
        new ConfigurationError(
          `BenchmarkResult: durationS must be a non-negative number of seconds, found ${found}`,
          { kind: "invalid-option", option: "durationS" },
        ),
      );
    }
  });
});

describe("BenchmarkResult.merge", () => {
  const bench = () => new Benchmark({ dataset: samples, metrics: [exact, latency] });

  it("joins shards into the whole run in dataset order with recomputed summaries", async () => {
    const shards = await Promise.all(
      [2, 0, 1].map((index) => bench().run(engine, { name: "m", shard: { index, count: 3 } })),
    );
    const merged = BenchmarkResult.merge(shards);
    const whole = await bench().run(engine, { name: "m" });
    expect(merged.samples.map((s) => s.sampleId)).toEqual(samples.map((s) => s.id));
    expect(merged.status).toEqual(whole.status);
    expect(merged.summary.exact_match).toEqual(whole.summary.exact_match);
    expect(merged.shard).toBeUndefined();
  });

  it("refuses shard files whose shard indexes were swapped, instead of merging them out of order", async () => {
    const dir = await mkdtemp(join(tmpdir(), "fastrag-swapped-"));
    const even = samples.length % 2 === 0 ? samples : samples.slice(0, -1);
    const b = new Benchmark({ dataset: even, metrics: [exact, latency] });
    const files: string[] = [];
    for (const index of [0, 1]) {
      const file = join(dir, `m.shard-${index + 1}-of-2.json`);
      await (await b.run(engine, { name: "m", shard: { index, count: 2 } })).save(file);
      files.push(file);
    }
    // Swap the shard indexes inside the two files, as an edit or a faulty script would.
    const texts = await Promise.all(files.map((f) => readFile(f, "utf8")));
    await writeFile(files[0] as string, (texts[0] as string).replace('"index": 0', '"index": 1'));
    await writeFile(files[1] as string, (texts[1] as string).replace('"index": 1', '"index": 0'));
    const loaded = await Promise.all(files.map((f) => BenchmarkResult.load(f)));
    expect(loaded[0]?.shard?.index).toBe(1);
    expect(() => BenchmarkResult.merge(loaded)).toThrow(
      new ConfigurationError(
        `merge: the result of "m" that says it is shard 2/2 holds the samples of shard 1/2 (its shard index was changed); merged, each of its samples would land in another's place. Set its shard index back to 0, or run the shard again`,
        { kind: "invalid-input", field: "shard" },
      ),
    );
    // Unswapped, they merge in dataset order; and the fingerprint survives save and load.
    const good = await Promise.all(
      texts.map(async (t, i) => {
        await writeFile(files[i] as string, t as string);
        return BenchmarkResult.load(files[i] as string);
      }),
    );
    expect(good[0]?.shard?.samplesFingerprint).toMatch(/^sha256:[0-9a-f]{32}$/);
    expect(BenchmarkResult.merge(good).samples.map((s) => s.sampleId)).toEqual(
      even.map((s) => s.id),
    );
    // Without fingerprints (files from before they were recorded), merge trusts the indexes.
    const old = texts.map((t) => t.replace(/,\s*"samples_fingerprint": "[^"]*"/, ""));
    expect(old[0]).not.toContain("samples_fingerprint");
    for (const [i, t] of old.entries()) await writeFile(files[i] as string, t);
    const older = await Promise.all(files.map((f) => BenchmarkResult.load(f)));
    expect(older[0]?.shard?.samplesFingerprint).toBeUndefined();
    expect(BenchmarkResult.merge(older).samples).toHaveLength(even.length);
  });

  it("refuses overlapping, incomplete or mismatched shards, saying which", async () => {
    const s0 = await bench().run(engine, { name: "m", shard: { index: 0, count: 2 } });
    const s1 = await bench().run(engine, { name: "m", shard: { index: 1, count: 2 } });
    expect(() => BenchmarkResult.merge([s0, s0, s1])).toThrow(/shard 1\/2 appears twice/);
    expect(() => BenchmarkResult.merge([s0])).toThrow(/missing shard\(s\) 2\/2/);
    const other = await bench().run(engine, { name: "other", shard: { index: 1, count: 2 } });
    expect(() => BenchmarkResult.merge([s0, other])).toThrow(
      /shards belong to different runs: .*; merge each run's shards on their own/,
    );
    const fewer = await new Benchmark({ dataset: samples, metrics: [exact] }).run(engine, {
      name: "m",
      shard: { index: 1, count: 2 },
    });
    expect(() => BenchmarkResult.merge([s0, fewer])).toThrow(/different metrics/);
    // The same metrics, but one shard scored exact_match as lower-is-better.
    const flipped = await new Benchmark({
      dataset: samples,
      metrics: [{ ...exact, higherIsBetter: false }, latency],
    }).run(engine, { name: "m", shard: { index: 1, count: 2 } });
    for (const order of [
      [s0, flipped],
      [flipped, s0],
    ]) {
      expect(() => BenchmarkResult.merge(order)).toThrow(
        /disagree on the direction of "exact_match"/,
      );
    }
    const otherData = await new Benchmark({
      dataset: samples.slice(0, 5),
      metrics: [exact, latency],
    }).run(engine, {
      name: "m",
      shard: { index: 1, count: 2 },
    });
    expect(() => BenchmarkResult.merge([s0, otherData])).toThrow(/different datasets/);
    const whole = await bench().run(engine, { name: "m" });
    expect(() => BenchmarkResult.merge([whole])).toThrow(/not a shard/);
  });

  it("refuses what is not a list of results with a ConfigurationError, never a TypeError", async () => {
    const s0 = await bench().run(engine, { name: "m", shard: { index: 0, count: 2 } });
    for (const [input, message] of [
      [null, "merge: expected an array of results, found null"],
      [s0, "merge: expected an array of results, found an object"],
      [[s0, null], "merge: shards[1] is null, expected a BenchmarkResult (from run() or load())"],
      [[{}], "merge: shards[0] is an object, expected a BenchmarkResult (from run() or load())"],
    ] as const) {
      expect(() => BenchmarkResult.merge(input as never)).toThrow(
        new ConfigurationError(message, { kind: "invalid-option" }),
      );
    }
  });
});

describe("new BenchmarkResult", () => {
  it("refuses an init without its required fields with a ConfigurationError", () => {
    const ok = {
      name: "r",
      createdAt: new Date(0),
      durationS: 0,
      samples: [],
      higherIsBetter: {},
    };
    expect(new BenchmarkResult(ok).sampleCount).toBe(0);
    for (const [init, message, option] of [
      [{}, "BenchmarkResult: name must be a string, found undefined", "name"],
      [null, "BenchmarkResult: the init must be an object, found null", undefined],
      [
        { ...ok, createdAt: "2026" },
        'BenchmarkResult: createdAt must be a Date, found the string "2026"',
        "createdAt",
      ],
      [
        { ...ok, samples: undefined },
        "BenchmarkResult: samples must be an array, found undefined",
        "samples",
      ],
      [
        { ...ok, higherIsBetter: null },
        "BenchmarkResult: higherIsBetter must be an object of metric → boolean, found null",
        "higherIsBetter",
      ],
    ] as const) {
      expect(() => new BenchmarkResult(init as never)).toThrow(
        new ConfigurationError(message, {
          kind: "invalid-option",
          ...(option === undefined ? {} : { option }),
        }),
      );
    }
  });
});

describe("prototype safety", () => {
  it("keeps __proto__, constructor and prototype keys as plain data", async () => {
    const text = `{"format": "${RESULT_FORMAT}", "name": "p", "created_at": "2026-01-01T00:00:00Z", "duration_s": 1,
      "status": {"successful": 1, "errored": 0, "incomplete": 0},
      "summary": {"__proto__": {"count": 1, "mean": 1, "std": 0, "min": 1, "p50": 1, "p90": 1, "p95": 1, "p99": 1, "max": 1},
        "constructor": {"count": 1, "mean": 0.5, "std": 0, "min": 0.5, "p50": 0.5, "p90": 0.5, "p95": 0.5, "p99": 0.5, "max": 0.5},
        "prototype": {"count": 1, "mean": 0, "std": 0, "min": 0, "p50": 0, "p90": 0, "p95": 0, "p99": 0, "max": 0}},
      "higher_is_better": {"__proto__": true, "constructor": false, "prototype": true},
      "samples": [{"question": "q", "status": "successful", "scores": {"__proto__": 1, "constructor": 0.5, "prototype": 0},
        "answer": null, "retrieved_ids": [], "retrieved_uris": [], "latency_ms": 1, "error": null}]}`;
    const r = BenchmarkResult.parse(text, "proto.json");
    const scores = r.samples[0]?.scores as Record<string, number>;
    expect(Object.getPrototypeOf(scores)).toBe(Object.prototype);
    expect(Object.keys(scores)).toEqual(["__proto__", "constructor", "prototype"]);
    expect(Object.getOwnPropertyDescriptor(scores, "__proto__")?.value).toBe(1);
    expect(r.metrics).toEqual(["__proto__", "constructor", "prototype"]);
    expect(Object.getOwnPropertyDescriptor(r.summary, "__proto__")?.value.mean).toBe(1);
    expect(({} as Record<string, unknown>).count).toBeUndefined();
    // And it survives a save/load round trip as data.
    const path = join(dir, "proto.json");
    await r.save(path);
    const back = await BenchmarkResult.load(path);
    expect(Object.keys(back.samples[0]?.scores ?? {})).toEqual([
      "__proto__",
      "constructor",
      "prototype",
    ]);
  });
});

describe("metric names that exist on Object.prototype", () => {
  it("summarizes and reads them as plain metrics", () => {
    const r = new BenchmarkResult({
      name: "proto-names",
      createdAt: new Date(0),
      durationS: 1,
      samples: [
        {
          question: "q",
          status: "incomplete",
          scores: { constructor: null, toString: 0.5 },
          answer: null,
          retrievedIds: [],
          retrievedUris: [],
          latencyMs: 1,
          error: null,
        },
      ],
      higherIsBetter: { constructor: true, toString: true },
    });
    expect(r.summary.constructor).toMatchObject({ count: 0, mean: null });
    expect(r.stat("toString")).toBe(0.5);
    expect(r.stat("valueOf")).toBeUndefined();
  });
});
