import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Benchmark } from "./benchmark.js";
import { BenchmarkResult } from "./benchmark-result.js";
import { ConfigurationError } from "./errors.js";
import type { EvalSample, Metric, QueryEngine, Retriever } from "./types.js";

// Fault injection: whatever the target or a metric does, the run finishes, every status is exact
// and no failure is ever scored as a number.

const samples = (n: number): EvalSample[] =>
  Array.from({ length: n }, (_, i) => ({
    id: `q${i}`,
    question: `question ${i}`,
    expectedAnswers: [`a${i}`],
    relevantIds: [`d${i}`],
  }));

const constant = (name: string, value: number): Metric => ({
  name,
  higherIsBetter: true,
  needsRelevantIds: false,
  needsAnswer: false,
  score: () => value,
});

describe("fault injection", () => {
  it("survives a target that resolves twice (a thenable calling back twice) or returns non-arrays", async () => {
    const weird: Retriever = {
      retrieve(query) {
        if (query === "question 0") {
          // A hand-rolled thenable that resolves twice: only the first value counts.
          const twice = {
            // biome-ignore lint/suspicious/noThenProperty: a misbehaving thenable is the point of this test
            then(ok: (v: unknown) => void) {
              ok([{ id: "first" }]);
              ok([{ id: "second" }]);
            },
          };
          return twice as never;
        }
        if (query === "question 1") return Promise.resolve({ id: "not-an-array" } as never);
        if (query === "question 2") return Promise.resolve([null] as never);
        if (query === "question 3") return Promise.resolve([{ id: "ok", uri: 5 }] as never);
        if (query === "question 4") return Promise.resolve([{ id: "ok", score: "high" }] as never);
        if (query === "question 5") return Promise.resolve([{ id: "ok", text: ["a"] }] as never);
        // Absent or null score and text, and any number as a score, are fine.
        return Promise.resolve([
          { id: "a", score: null, text: null },
          { id: "b", score: Number.NaN, text: "t" },
        ] as never);
      },
    };
    const r = await new Benchmark({ dataset: samples(7), metrics: [constant("c", 1)] }).run(weird, {
      name: "w",
    });
    expect(r.samples[0]).toMatchObject({ status: "successful", retrievedIds: ["first"] });
    expect(r.samples[1]).toMatchObject({
      status: "errored",
      error: expect.stringMatching(/expected an array/),
    });
    expect(r.samples[2]).toMatchObject({
      status: "errored",
      error: expect.stringMatching(/\[0\] is null/),
    });
    expect(r.samples[3]).toMatchObject({
      status: "errored",
      error: expect.stringMatching(/uri is the number 5/),
    });
    expect(r.samples[4]).toMatchObject({
      status: "errored",
      error:
        'MalformedOutputError: retrieve() result[0].score is the string "high", expected a number',
    });
    expect(r.samples[5]).toMatchObject({
      status: "errored",
      error:
        "MalformedOutputError: retrieve() result[0].text is an array of 1 item, expected a string",
    });
    expect(r.samples[6]).toMatchObject({ status: "successful", retrievedIds: ["a", "b"] });
    expect(r.status).toEqual({ successful: 2, errored: 5, incomplete: 0 });
  });

  it("waits for a slow metric without blocking other samples", async () => {
    const slow: Metric = {
      name: "slow",
      higherIsBetter: true,
      needsRelevantIds: false,
      needsAnswer: false,
      score: ({ sample }) =>
        new Promise((r) => setTimeout(() => r(sample.id === "q0" ? 0.25 : 0.75), 30)),
    };
    const order: string[] = [];
    const engine: QueryEngine = {
      async query(_q, { sample }) {
        order.push(sample.id as string);
        return { answer: "x" };
      },
    };
    const r = await new Benchmark({ dataset: samples(4), metrics: [slow], maxConcurrent: 4 }).run(
      engine,
      {
        name: "slow",
      },
    );
    expect(order).toHaveLength(4);
    expect(r.samples.map((s) => s.scores.slow)).toEqual([0.25, 0.75, 0.75, 0.75]);
  });

  it("never writes NaN or Infinity into a result file", async () => {
    const bad: Metric = {
      name: "bad",
      higherIsBetter: true,
      needsRelevantIds: false,
      needsAnswer: false,
      score: ({ sample }) =>
        [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, "0.5" as never, 1][
          Number((sample.id as string).slice(1)) % 5
        ] as number,
    };
    const r = await new Benchmark({ dataset: samples(5), metrics: [bad] }).run(
      { query: async () => ({ answer: "a" }) },
      { name: "nan" },
    );
    const dir = await mkdtemp(join(tmpdir(), "fastrag-faults-"));
    await r.save(join(dir, "nan.json"));
    const text = JSON.stringify(r.toJSON());
    // No NaN/Infinity as a value (the reasons in `error` may name them).
    expect(text).not.toMatch(/[:,[]\s*-?(NaN|Infinity)/);
    expect(r.samples.map((s) => s.scores.bad)).toEqual([null, null, null, null, 1]);
    expect(r.samples[3]?.error).toMatch(
      /bad: returned the string "0.5", expected a finite number or null/,
    );
    expect((await BenchmarkResult.load(join(dir, "nan.json"))).status).toEqual({
      successful: 1,
      errored: 0,
      incomplete: 4,
    });
  });

  it("counts statuses exactly for 10,000 samples with 10% random failures at maxConcurrent 256", async () => {
    const failing = new Set<string>();
    const nullScored = new Set<string>();
    let seed = 7;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const data = samples(10_000);
    for (const s of data) {
      const u = rand();
      if (u < 0.1) failing.add(s.id as string);
      else if (u < 0.15) nullScored.add(s.id as string);
    }
    const engine: QueryEngine = {
      async query(_q, { sample }) {
        await new Promise((r) => setTimeout(r, rand() * 2));
        if (failing.has(sample.id as string)) {
          if (rand() < 0.5) throw new Error("flaky upstream");
          return Promise.reject("rejected with a string");
        }
        return { answer: "a", chunks: [{ id: sample.relevantIds[0] as string }] };
      },
    };
    const metric: Metric = {
      name: "m",
      higherIsBetter: true,
      needsRelevantIds: false,
      needsAnswer: false,
      // A metric that fails (throws) leaves its sample incomplete; a plain null would be "not
      // applicable" and leave it successful.
      score: ({ sample }) => {
        if (nullScored.has(sample.id as string)) throw new Error("judge unreachable");
        return 1;
      },
    };
    const r = await new Benchmark({ dataset: data, metrics: [metric], maxConcurrent: 256 }).run(
      engine,
      {
        name: "10k",
      },
    );
    expect(r.status).toEqual({
      successful: 10_000 - failing.size - nullScored.size,
      errored: failing.size,
      incomplete: nullScored.size,
    });
    for (const s of r.samples) {
      if (failing.has(s.sampleId as string)) {
        expect(s.scores.m).toBeNull();
        expect(s.status).toBe("errored");
      }
    }
    // Nothing failed is averaged in as a zero: the mean of the scored samples is exactly 1.
    expect(r.summary.m).toMatchObject({
      count: 10_000 - failing.size - nullScored.size,
      mean: 1,
      min: 1,
    });
    expect(r.samples.map((s) => s.sampleId)).toEqual(data.map((s) => s.id));
  });

  it("records a thrown value whose message cannot be read as an errored sample, keeping the run", async () => {
    // Each of these made reading the error throw, which rejected the whole run and lost every
    // finished sample.
    const unreadableMessage = new Error("hidden");
    Object.defineProperty(unreadableMessage, "message", {
      get() {
        throw new Error("message getter");
      },
    });
    const unprintable = {
      toString() {
        throw new Error("toString");
      },
      toJSON() {
        throw new Error("toJSON");
      },
    };
    const proxy = new Proxy(
      {},
      {
        get() {
          throw new Error("proxy get");
        },
        getPrototypeOf() {
          throw new Error("proxy prototype");
        },
      },
    );
    const numericMessage = new Error();
    numericMessage.name = "HttpError";
    (numericMessage as { message: unknown }).message = 503;
    const thrown: unknown[] = [unreadableMessage, unprintable, proxy, numericMessage];
    const engine: QueryEngine = {
      async query(_q, { sample }) {
        const i = Number((sample.id as string).slice(1));
        if (i < thrown.length) throw thrown[i];
        return { answer: "a" };
      },
    };
    const unreadable =
      "an error was thrown whose message cannot be read (reading its message, name or text threw)";
    for (const extra of [
      {},
      { timeoutMs: 1000 },
      { retries: { attempts: 2, backoffMs: 0, retryOn: () => true } },
    ]) {
      const r = await new Benchmark({ dataset: samples(5), metrics: [constant("c", 1)] }).run(
        engine,
        { name: "unreadable", ...extra },
      );
      expect(r.samples.map((s) => s.error)).toEqual([
        unreadable,
        unreadable,
        unreadable,
        "HttpError: 503",
        null,
      ]);
      expect(r.status).toEqual({ successful: 1, errored: 4, incomplete: 0 });
    }
    // The same from a metric: the sample is incomplete with the reason, the run goes on.
    const throwing: Metric = { ...constant("t", 0), score: () => Promise.reject(unprintable) };
    const r = await new Benchmark({
      dataset: samples(5),
      metrics: [throwing, constant("c", 1)],
    }).run(engine, { name: "metric" });
    expect(r.samples[4]).toMatchObject({
      status: "incomplete",
      scores: { t: null, c: 1 },
      error: `t: ${unreadable}`,
    });
  });

  it("records the ids, uris and answer the target returned, read once", async () => {
    // Accessors that answer differently on a second read, and a metric that edits the chunk list
    // it is handed: the record keeps what was validated, and the file loads back.
    const engine: QueryEngine = {
      async query(_q, { sample }) {
        let reads = 0;
        const chunk = {
          get id() {
            if (reads++ > 0) throw new Error("id read twice");
            return `doc-${sample.id}`;
          },
          uri: "u1",
        };
        let answers = 0;
        return {
          get answer() {
            return (answers++ === 0 ? "the answer" : 42) as string;
          },
          chunks: [chunk, { id: "second" }],
        };
      },
    };
    const editing: Metric = {
      ...constant("edit", 1),
      score: ({ retrieved }) => {
        (retrieved as unknown[]).splice(0, 2, null);
        return 1;
      },
    };
    const r = await new Benchmark({ dataset: samples(2), metrics: [editing] }).run(engine, {
      name: "once",
    });
    expect(r.status).toEqual({ successful: 2, errored: 0, incomplete: 0 });
    expect(r.samples.map((s) => [s.answer, s.retrievedIds, s.retrievedUris])).toEqual([
      ["the answer", ["doc-q0", "second"], ["u1", null]],
      ["the answer", ["doc-q1", "second"], ["u1", null]],
    ]);
    const dir = await mkdtemp(join(tmpdir(), "fastrag-faults-"));
    await r.save(join(dir, "once.json"));
    expect((await BenchmarkResult.load(join(dir, "once.json"))).samples[1]?.answer).toBe(
      "the answer",
    );
  });

  it("waits the computed backoff when an error's retryAfterMs cannot be read", async () => {
    const error = new Error("rate limited");
    Object.defineProperty(error, "retryAfterMs", {
      get() {
        throw new Error("retryAfterMs getter");
      },
    });
    let calls = 0;
    const r = await new Benchmark({ dataset: samples(2), metrics: [constant("c", 1)] }).run(
      {
        async query(_q, { sample }) {
          calls++;
          if (sample.id === "q0") throw error;
          return { answer: "a" };
        },
      },
      { name: "after", retries: { attempts: 3, backoffMs: 1, retryOn: () => true } },
    );
    expect(calls).toBe(4);
    expect(r.samples.map((s) => [s.status, s.error, s.attempts])).toEqual([
      ["errored", "rate limited", 3],
      ["successful", null, 1],
    ]);
  });

  it("records a score of -0 as 0, as the saved file and a resumed journal hold it", async () => {
    const rounded: Metric = { ...constant("rounded", 0), score: () => Math.round(-0.4) };
    const r = await new Benchmark({ dataset: samples(2), metrics: [rounded] }).run(
      { query: async () => ({ answer: "a" }) },
      { name: "zero" },
    );
    expect(Object.is(r.samples[0]?.scores.rounded, 0)).toBe(true);
    expect(Object.is(r.summary.rounded?.min, 0)).toBe(true);
    const dir = await mkdtemp(join(tmpdir(), "fastrag-faults-"));
    await r.save(join(dir, "zero.json"));
    const loaded = await BenchmarkResult.load(join(dir, "zero.json"));
    expect(loaded.samples).toEqual(r.samples);
    expect(loaded.summary).toEqual(r.summary);
  });
});

describe("BenchmarkResult.load fuzzing", () => {
  it("gives a result or a ConfigurationError for any bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        try {
          BenchmarkResult.parse(Buffer.from(bytes).toString("utf8"), "fuzz.json");
        } catch (error) {
          expect(ConfigurationError.isInstance(error), String(error)).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });

  it("gives a result or a ConfigurationError for any JSON value shaped like a result", () => {
    const good = {
      format: "fastrag-bench-result/1",
      name: "x",
      created_at: "2026-01-01T00:00:00Z",
      duration_s: 1,
      status: { successful: 0, errored: 0, incomplete: 0 },
      summary: {},
      higher_is_better: {},
      samples: [],
    };
    const mutated = fc.tuple(
      fc.constantFrom(
        ...Object.keys(good),
        "samples.0",
        "samples.0.scores",
        "samples.0.retrieved_ids",
      ),
      fc.jsonValue(),
    );
    fc.assert(
      fc.property(mutated, ([key, value]) => {
        const doc = JSON.parse(JSON.stringify(good));
        doc.samples = [
          {
            question: "q",
            status: "successful",
            scores: {},
            answer: null,
            retrieved_ids: [],
            retrieved_uris: [],
            latency_ms: 1,
            error: null,
          },
        ];
        const parts = key.split(".");
        let target = doc;
        for (const p of parts.slice(0, -1)) target = target[p];
        target[parts[parts.length - 1] as string] = value;
        try {
          BenchmarkResult.fromJSON(doc, "fuzz.json");
        } catch (error) {
          expect(ConfigurationError.isInstance(error), String(error)).toBe(true);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it("rejects a file with a BOM, CRLF and huge numbers correctly", async () => {
    const dir = await mkdtemp(join(tmpdir(), "fastrag-bom-"));
    const r = new BenchmarkResult({
      name: "bom",
      createdAt: new Date(0),
      durationS: 1,
      samples: [],
      higherIsBetter: { m: true },
    });
    const text = JSON.stringify(r.toJSON(), null, 2).replace(/\n/g, "\r\n");
    await writeFile(join(dir, "bom.json"), `\ufeff${text}`);
    expect((await BenchmarkResult.load(join(dir, "bom.json"))).name).toBe("bom");
    await writeFile(join(dir, "huge.json"), text.replace('"duration_s": 1', '"duration_s": 1e999'));
    await expect(BenchmarkResult.load(join(dir, "huge.json"))).rejects.toThrow(
      /duration_s: expected a finite number/,
    );
  });
});
