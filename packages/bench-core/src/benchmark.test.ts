import { getEventListeners } from "node:events";
import { existsSync, mkdtempSync, readdirSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Benchmark } from "./benchmark.js";
import { MemoryCache } from "./cache.js";
import { ConfigurationError } from "./errors.js";
import { RunAbortedError } from "./run-errors.js";
import { ABORT_GRACE } from "./runner/metric-cutter.js";
import type { EvalSample, Metric, MetricInput, QueryEngine, Retriever } from "./types.js";

function dataset(n: number, withRelevant = true): EvalSample[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `q${i}`,
    question: `question ${i}`,
    expectedAnswers: [`answer ${i}`],
    relevantIds: withRelevant ? [`doc-${i}`] : [],
  }));
}

/** Hit if the sample's first relevant id is among the retrieved ids. */
const hit: Metric = {
  name: "hit",
  higherIsBetter: true,
  needsRelevantIds: true,
  needsAnswer: false,
  score: ({ sample, retrieved }) =>
    sample.relevantIds.length === 0
      ? null
      : retrieved.some((c) => c.id === sample.relevantIds[0])
        ? 1
        : 0,
};

const exact: Metric = {
  name: "exact",
  higherIsBetter: true,
  needsRelevantIds: false,
  needsAnswer: true,
  score: ({ sample, answer }) => (answer === sample.expectedAnswers[0] ? 1 : 0),
};

const latency: Metric = {
  name: "latency_ms",
  higherIsBetter: false,
  needsRelevantIds: false,
  needsAnswer: false,
  score: ({ latencyMs }) => latencyMs,
};

const perfectEngine: QueryEngine = {
  async query(question, { sample }) {
    return {
      answer: sample.expectedAnswers[0] as string,
      chunks: [{ id: sample.relevantIds[0] ?? "x", uri: `u:${question}` }],
    };
  },
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("new Benchmark", () => {
  it("rejects duplicate metric names", () => {
    expect(() => new Benchmark({ dataset: dataset(2), metrics: [hit, { ...hit }] })).toThrow(
      /two metrics are named "hit"/,
    );
  });

  it("rejects a metric without a boolean direction, which its saved result would need", () => {
    for (const [bad, found] of [
      [undefined, "undefined"],
      ["false", 'the string "false"'],
      [0, "the number 0"],
      [null, "null"],
    ]) {
      const metric = { ...hit, higherIsBetter: bad } as unknown as Metric;
      expect(() => new Benchmark({ dataset: dataset(2), metrics: [metric] }), String(bad)).toThrow(
        `metric "hit": higherIsBetter must be true or false (the direction is saved with every result), found ${found}`,
      );
    }
  });

  it("rejects an empty metric list, a bad maxConcurrent and an empty dataset", () => {
    expect(() => new Benchmark({ dataset: dataset(2), metrics: [] })).toThrow(ConfigurationError);
    for (const bad of [0, -1, 1.5, Number.NaN, "4" as unknown as number]) {
      expect(
        () => new Benchmark({ dataset: dataset(2), metrics: [hit], maxConcurrent: bad }),
      ).toThrow(/maxConcurrent must be a positive integer/);
    }
    // The string "4" is named as a string: "found 4" would read as the number it is not.
    expect(
      () =>
        new Benchmark({
          dataset: dataset(2),
          metrics: [hit],
          maxConcurrent: "4" as unknown as number,
        }),
    ).toThrow(/maxConcurrent must be a positive integer, found the string "4"$/);
    expect(() => new Benchmark({ dataset: [], metrics: [hit] })).toThrow(/no samples/);
  });

  it("rejects metrics the dataset cannot satisfy", () => {
    expect(() => new Benchmark({ dataset: dataset(3, false), metrics: [hit] })).toThrow(
      /needs relevant ids and no sample has any/,
    );
    // One generation metric makes the dataset scorable.
    expect(
      () => new Benchmark({ dataset: dataset(3, false), metrics: [hit, exact] }),
    ).not.toThrow();
    // A positive grade judges a sample too: a graded metric (nDCG) scores it even when a
    // threshold (trec_eval -l) left its relevant ids empty. Grades of 0 or less judge nothing.
    const graded = (grade: number): EvalSample[] =>
      dataset(2, false).map((s, i) => ({ ...s, relevance: { [`doc-${i}`]: i === 1 ? grade : 0 } }));
    expect(() => new Benchmark({ dataset: graded(2), metrics: [hit] })).not.toThrow();
    expect(() => new Benchmark({ dataset: graded(-1), metrics: [hit] })).toThrow(
      /needs relevant ids and no sample has any \(nor a positive grade in `relevance`\)/,
    );
  });

  it("accepts a dataset object with samples and rejects malformed samples", () => {
    expect(
      new Benchmark({ dataset: { samples: dataset(2) }, metrics: [hit] }).samples,
    ).toHaveLength(2);
    const bad = [{ question: 42, expectedAnswers: [], relevantIds: [] }] as unknown as EvalSample[];
    expect(() => new Benchmark({ dataset: bad, metrics: [exact] })).toThrow(
      /sample 0: question must be a string/,
    );
    const entry = [{ question: "q", expectedAnswers: ["a", 7], relevantIds: [] }];
    expect(
      () => new Benchmark({ dataset: entry as unknown as EvalSample[], metrics: [exact] }),
    ).toThrow(/sample 0: expectedAnswers\[1\] must be a string, found the number 7/);
    // biome-ignore lint/suspicious/noSparseArray: the hole is the point
    const sparse = [{ question: "q", expectedAnswers: [], relevantIds: ["d1", , "d3"] }];
    expect(
      () => new Benchmark({ dataset: sparse as unknown as EvalSample[], metrics: [exact] }),
    ).toThrow(/sample 0: relevantIds\[1\] must be a string, found an empty slot/);
  });
});

describe("Benchmark.run", () => {
  it("scores every sample and records ids, uris and latency", async () => {
    const result = await new Benchmark({ dataset: dataset(5), metrics: [hit, exact, latency] }).run(
      perfectEngine,
      { name: "perfect" },
    );
    expect(result.name).toBe("perfect");
    expect(result.status).toEqual({ successful: 5, errored: 0, incomplete: 0 });
    expect(result.summary.hit?.mean).toBe(1);
    expect(result.summary.exact?.mean).toBe(1);
    expect(result.higherIsBetter).toEqual({ hit: true, exact: true, latency_ms: false });
    const first = result.samples[0];
    expect(first).toMatchObject({
      sampleId: "q0",
      question: "question 0",
      status: "successful",
      answer: "answer 0",
      retrievedIds: ["doc-0"],
      retrievedUris: ["u:question 0"],
      error: null,
    });
    expect(first?.latencyMs).toBeGreaterThanOrEqual(0);
    expect(first?.scores.latency_ms).toBeGreaterThanOrEqual(0);
  });

  it("refuses an unusable target before any sample runs", async () => {
    const b = new Benchmark({ dataset: dataset(2), metrics: [hit] });
    for (const bad of [null, {}, { query: "no" }, () => []]) {
      await expect(b.run(bad as unknown as Retriever, { name: "x" })).rejects.toThrow(
        ConfigurationError,
      );
    }
  });

  it("refuses a query or retrieve that is not a function, never taking it for the other kind", async () => {
    let calls = 0;
    const retrieve = async () => {
      calls++;
      return [];
    };
    const b = new Benchmark({ dataset: dataset(2), metrics: [hit] });
    for (const [target, message] of [
      [
        { query: 5, retrieve },
        "Benchmark.run: the target's query is the number 5; a QueryEngine's query must be a function, query(question, { signal, sample }) → Promise<{ answer, chunks? }> (a target with query is an engine even when it has retrieve(): remove query to use it as a Retriever)",
      ],
      [
        { query: "gpt-4o" },
        `Benchmark.run: the target's query is the string "gpt-4o"; a QueryEngine's query must be a function, query(question, { signal, sample }) → Promise<{ answer, chunks? }>`,
      ],
      [
        { retrieve: "bm25" },
        `Benchmark.run: the target's retrieve is the string "bm25"; a Retriever's retrieve must be a function, retrieve(query, { signal, sample }) → Promise<RetrievedChunk[]>`,
      ],
    ] as const) {
      const error = await b.run(target as unknown as Retriever, { name: "x" }).catch((e) => e);
      expect(ConfigurationError.isInstance(error)).toBe(true);
      expect((error as Error).message).toBe(message);
    }
    expect(calls).toBe(0);
    // A query left undefined (an optional property unset) is absent: a Retriever.
    const result = await b.run({ query: undefined, retrieve } as unknown as Retriever, {
      name: "r",
    });
    expect(calls).toBe(2);
    expect(result.status).toEqual({ successful: 2, errored: 0, incomplete: 0 });
    // So is a query set to null (a class field left unset): it used to run as a Retriever.
    const nulled = await b.run({ query: null, retrieve } as unknown as Retriever, { name: "n" });
    expect(calls).toBe(4);
    expect(nulled.status).toEqual({ successful: 2, errored: 0, incomplete: 0 });
  });

  it("refuses a bare Retriever when a metric needs an answer, before calling it", async () => {
    let calls = 0;
    const retriever: Retriever = {
      async retrieve() {
        calls++;
        return [];
      },
    };
    const b = new Benchmark({ dataset: dataset(2), metrics: [hit, exact] });
    await expect(b.run(retriever, { name: "r" })).rejects.toThrow(
      /Retriever.*, and exact needs an answer\. Pass a QueryEngine or drop that metric$/,
    );
    const exact2 = { ...exact, name: "exact2" };
    const two = new Benchmark({ dataset: dataset(2), metrics: [exact, hit, exact2] });
    await expect(two.run(retriever, { name: "r" })).rejects.toThrow(
      /, and exact, exact2 need an answer\. Pass a QueryEngine or drop those metrics$/,
    );
    expect(calls).toBe(0);
  });

  it("calls the target with the question, a signal and the sample", async () => {
    const seen: unknown[] = [];
    const retriever: Retriever = {
      async retrieve(query, options) {
        seen.push([query, options.sample.id, options.signal instanceof AbortSignal]);
        return [];
      },
    };
    await new Benchmark({ dataset: dataset(2), metrics: [hit], maxConcurrent: 1 }).run(retriever, {
      name: "r",
    });
    expect(seen).toEqual([
      ["question 0", "q0", true],
      ["question 1", "q1", true],
    ]);
  });

  it("marks a throwing, rejecting, non-Error-throwing or garbage-returning target errored, never zero", async () => {
    const engine: QueryEngine = {
      query(question) {
        switch (question) {
          case "question 0":
            throw new Error("sync boom");
          case "question 1":
            return Promise.reject(new TypeError("async boom"));
          case "question 2":
            return Promise.reject({ code: 429 });
          case "question 3":
            return Promise.resolve(undefined as never);
          case "question 4":
            return Promise.resolve({ answer: 42 } as never);
          case "question 5":
            return Promise.resolve({ answer: "a", chunks: [{ id: 7 }] } as never);
          case "question 6":
            return Promise.resolve({ answer: "a", chunks: "doc-1" } as never);
          default:
            return perfectEngine.query(question, undefined as never);
        }
      },
    };
    const data = dataset(8);
    const result = await new Benchmark({ dataset: data, metrics: [hit, exact] }).run(
      { query: (q, o) => (q === "question 7" ? perfectEngine.query(q, o) : engine.query(q, o)) },
      { name: "faulty" },
    );
    expect(result.status).toEqual({ successful: 1, errored: 7, incomplete: 0 });
    const errors = result.samples.map((s) => s.error);
    expect(errors[0]).toBe("sync boom");
    expect(errors[1]).toBe("TypeError: async boom");
    expect(errors[2]).toBe('non-Error thrown: {"code":429}');
    expect(errors[3]).toMatch(/returned undefined/);
    expect(errors[4]).toMatch(/answer the number 42, expected a string/);
    expect(errors[5]).toMatch(/chunks\[0\]\.id is the number 7/);
    expect(errors[6]).toMatch(/chunks is the string ".*", expected an array/);
    for (const s of result.samples.slice(0, 7)) {
      expect(s.status).toBe("errored");
      expect(s.scores).toEqual({ hit: null, exact: null });
      expect(s.latencyMs).toBeNull();
    }
    // Errored samples are left out of the summary, not averaged in as zeros.
    expect(result.summary.hit).toMatchObject({ count: 1, mean: 1 });
  });

  it("times out a hanging target, aborts its signal and frees the slot", async () => {
    let abortedSignals = 0;
    const engine: QueryEngine = {
      query(question, { signal, sample }) {
        if (question === "question 0") {
          signal.addEventListener("abort", () => abortedSignals++);
          return new Promise(() => {}); // hangs forever, ignoring the signal
        }
        return perfectEngine.query(question, { signal, sample });
      },
    };
    const result = await new Benchmark({
      dataset: dataset(3),
      metrics: [exact],
      maxConcurrent: 1,
    }).run(engine, {
      name: "t",
      timeoutMs: 30,
    });
    expect(result.samples[0]).toMatchObject({
      status: "errored",
      error: "TimeoutError: timed out after 30 ms",
    });
    expect(abortedSignals).toBe(1);
    expect(result.status).toEqual({ successful: 2, errored: 1, incomplete: 0 });
  });

  it("marks a sample incomplete when a metric throws or returns NaN; a null is not applicable", async () => {
    const flaky: Metric = {
      name: "flaky",
      higherIsBetter: true,
      needsRelevantIds: false,
      needsAnswer: false,
      score: ({ sample }) => {
        if (sample.id === "q0") return null;
        if (sample.id === "q1") throw new Error("judge unreachable");
        if (sample.id === "q2") return Number.NaN;
        if (sample.id === "q3") return Promise.resolve(Number.POSITIVE_INFINITY);
        return Promise.resolve(0.5);
      },
    };
    const result = await new Benchmark({ dataset: dataset(5), metrics: [exact, flaky] }).run(
      perfectEngine,
      {
        name: "m",
      },
    );
    expect(result.samples.map((s) => s.status)).toEqual([
      // A plain null: the metric does not apply to q0; every metric that applies scored.
      "successful",
      "incomplete",
      "incomplete",
      "incomplete",
      "successful",
    ]);
    expect(result.samples[0]?.scores.flaky).toBeNull();
    expect(result.samples[0]?.error).toBeNull();
    expect(result.samples[1]?.error).toBe("flaky: judge unreachable");
    expect(result.samples[2]?.error).toMatch(/flaky: returned NaN/);
    expect(result.samples[3]?.error).toMatch(/flaky: returned Infinity/);
    for (const s of result.samples.slice(0, 4)) {
      expect(s.scores.flaky).toBeNull();
      expect(s.scores.exact).toBe(1);
    }
    expect(result.status).toEqual({ successful: 2, errored: 0, incomplete: 3 });
    expect(result.summary.flaky).toMatchObject({ count: 1, mean: 0.5 });
  });

  it("returns results in dataset order under random latencies and never exceeds maxConcurrent", async () => {
    let inFlight = 0;
    let peak = 0;
    const engine: QueryEngine = {
      async query(question, options) {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await sleep(Math.random() * 8);
        inFlight--;
        return perfectEngine.query(question, options);
      },
    };
    const progress: number[] = [];
    const result = await new Benchmark({
      dataset: dataset(60),
      metrics: [exact],
      maxConcurrent: 7,
    }).run(engine, {
      name: "order",
      onProgress: (p) => {
        progress.push(p.done);
        expect(p.total).toBe(60);
      },
    });
    expect(result.samples.map((s) => s.sampleId)).toEqual(dataset(60).map((s) => s.id));
    expect(peak).toBe(7);
    expect(progress).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
  });

  it("reports errored counts in progress and survives a throwing onProgress", async () => {
    const last: { errored: number }[] = [];
    const engine: QueryEngine = {
      async query(q, o) {
        if (q.endsWith("1")) throw new Error("x");
        return perfectEngine.query(q, o);
      },
    };
    const result = await new Benchmark({
      dataset: dataset(3),
      metrics: [exact],
      maxConcurrent: 1,
    }).run(engine, {
      name: "p",
      onProgress: (p) => {
        last.push({ errored: p.errored });
        throw new Error("progress bar crashed");
      },
    });
    expect(last.map((p) => p.errored)).toEqual([0, 1, 1]);
    expect(result.status.successful).toBe(2);
  });

  it("ignores an async onProgress that rejects (no unhandled rejection)", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      let calls = 0;
      const result = await new Benchmark({
        dataset: dataset(4),
        metrics: [exact],
        maxConcurrent: 2,
      }).run(perfectEngine, {
        name: "p",
        onProgress: async () => {
          calls++;
          throw new Error("webhook down");
        },
      });
      // Unhandled rejections are reported after a macrotask turn.
      await sleep(20);
      expect(calls).toBe(4);
      expect(result.status.successful).toBe(4);
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });

  it("stops scheduling on external abort, settles in-flight samples and keeps the finished ones", async () => {
    const controller = new AbortController();
    let started = 0;
    const engine: QueryEngine = {
      async query(q, o) {
        started++;
        if (q === "question 5") controller.abort(new Error("user pressed ^C"));
        await sleep(5);
        return perfectEngine.query(q, o);
      },
    };
    const b = new Benchmark({ dataset: dataset(50), metrics: [exact], maxConcurrent: 2 });
    const error = await b
      .run(engine, { name: "a", signal: controller.signal })
      .catch((e: unknown) => e);
    expect(RunAbortedError.isInstance(error)).toBe(true);
    const partial = (error as RunAbortedError<{ samples: { sampleId?: string; status: string }[] }>)
      .partial;
    expect(started).toBeLessThan(10);
    // Samples cut short by the abort are not recorded as finished; every recorded one succeeded.
    expect(partial.samples.length).toBeGreaterThanOrEqual(4);
    expect(partial.samples.every((s) => s.status === "successful")).toBe(true);
  });

  it("on abort, lets an in-flight call that ignores its signal settle, and keeps it", async () => {
    const controller = new AbortController();
    const engine: QueryEngine = {
      async query(q, o) {
        if (q === "question 1") {
          setTimeout(() => controller.abort(new Error("user pressed ^C")), 20);
          await sleep(150); // ignores o.signal, as many SDK calls do
        } else {
          await sleep(5);
        }
        return perfectEngine.query(q, o);
      },
    };
    const b = new Benchmark({ dataset: dataset(20), metrics: [exact], maxConcurrent: 2 });
    const started = performance.now();
    const error = await b
      .run(engine, { name: "a", signal: controller.signal })
      .catch((e: unknown) => e);
    expect(RunAbortedError.isInstance(error)).toBe(true);
    // run settled only after the slow call did.
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    const partial = (error as RunAbortedError<{ samples: { sampleId?: string; status: string }[] }>)
      .partial;
    const ids = partial.samples.map((s) => s.sampleId);
    expect(ids).toContain("q1");
    expect(partial.samples.every((s) => s.status === "successful")).toBe(true);
    expect(ids.length).toBeLessThan(20);
  });

  it("still cuts a hung call short at its timeout, signal or not", async () => {
    const controller = new AbortController();
    const engine: QueryEngine = {
      async query(q, o) {
        if (q === "question 0") await new Promise(() => {}); // never settles
        return perfectEngine.query(q, o);
      },
    };
    const result = await new Benchmark({ dataset: dataset(3), metrics: [exact] }).run(engine, {
      name: "t",
      timeoutMs: 50,
      signal: controller.signal,
    });
    expect(result.samples.map((s) => s.status)).toEqual(["errored", "successful", "successful"]);
    expect(result.samples[0]?.error).toMatch(/timed out|timeout/i);
  });

  it("retries only transient errors, with backoff, and records attempts", async () => {
    const calls = new Map<string, number>();
    const engine: QueryEngine = {
      async query(q, o) {
        const n = (calls.get(q) ?? 0) + 1;
        calls.set(q, n);
        if (q === "question 0" && n < 3)
          throw Object.assign(new Error("429 rate limited"), { status: 429 });
        if (q === "question 1") throw Object.assign(new Error("400 bad request"), { status: 400 });
        if (q === "question 2") throw Object.assign(new Error("503"), { status: 503 });
        return perfectEngine.query(q, o);
      },
    };
    const result = await new Benchmark({ dataset: dataset(3), metrics: [exact] }).run(engine, {
      name: "retry",
      retries: {
        attempts: 3,
        backoffMs: 1,
        retryOn: (e) => [429, 503].includes((e as { status: number }).status),
      },
    });
    expect(result.samples.map((s) => [s.status, s.attempts])).toEqual([
      ["successful", 3],
      ["errored", 1],
      ["errored", 3],
    ]);
    expect(result.samples[2]?.error).toBe("503");
  });

  it("stops waiting in a backoff when the run is aborted", async () => {
    const controller = new AbortController();
    const engine: QueryEngine = {
      async query() {
        setTimeout(() => controller.abort(), 10);
        throw new Error("transient");
      },
    };
    const t0 = Date.now();
    const error = await new Benchmark({ dataset: dataset(1), metrics: [exact] })
      .run(engine, {
        name: "b",
        signal: controller.signal,
        retries: { attempts: 5, backoffMs: 60_000, retryOn: () => true },
      })
      .catch((e: unknown) => e);
    expect(RunAbortedError.isInstance(error)).toBe(true);
    expect(Date.now() - t0).toBeLessThan(20_000);
  });

  it("runs a deterministic round-robin shard", async () => {
    const b = new Benchmark({ dataset: dataset(10), metrics: [exact] });
    const r = await b.run(perfectEngine, { name: "s", shard: { index: 1, count: 3 } });
    expect(r.samples.map((s) => s.sampleId)).toEqual(["q1", "q4", "q7"]);
    expect(r.shard).toEqual({
      index: 1,
      count: 3,
      samplesFingerprint: expect.stringMatching(/^sha256:[0-9a-f]{32}$/),
    });
    await expect(
      b.run(perfectEngine, { name: "s", shard: { index: 3, count: 3 } }),
    ).rejects.toThrow(/0 ≤ index < count/);
  });

  it("validates run options", async () => {
    const b = new Benchmark({ dataset: dataset(1), metrics: [exact] });
    await expect(b.run(perfectEngine, { name: "" })).rejects.toThrow(
      /name must be a non-empty string/,
    );
    await expect(b.run(perfectEngine, { name: "x", timeoutMs: -5 })).rejects.toThrow(/timeoutMs/);
    await expect(
      b.run(perfectEngine, { name: "x", retries: { attempts: 0, retryOn: () => true } }),
    ).rejects.toThrow(/retries.attempts/);
  });

  it("hands metrics the usage an engine reports", async () => {
    const seen: MetricInput[] = [];
    const spy: Metric = {
      name: "spy",
      higherIsBetter: true,
      needsRelevantIds: false,
      needsAnswer: true,
      score: (input) => {
        seen.push(input);
        return 1;
      },
    };
    await new Benchmark({ dataset: dataset(1), metrics: [spy] }).run(
      { query: async () => ({ answer: "a", usage: { totalTokens: 12, cost: 0.5 } }) },
      { name: "u" },
    );
    expect(seen[0]?.usage).toEqual({ totalTokens: 12, cost: 0.5 });
    expect(seen[0]?.retrieved).toEqual([]);
  });
});

describe("metric reasons", () => {
  it("keeps a MetricUnavailableError's reason as is, and the latency metric equals the recorded latency", async () => {
    const { MetricUnavailableError } = await import("./errors.js");
    const judge: Metric = {
      name: "judge",
      higherIsBetter: true,
      needsRelevantIds: false,
      needsAnswer: true,
      score: () => {
        throw new MetricUnavailableError('unparsable judge reply: "maybe"');
      },
    };
    const r = await new Benchmark({ dataset: dataset(2), metrics: [judge, latency] }).run(
      perfectEngine,
      { name: "j" },
    );
    expect(r.samples[0]?.error).toBe('judge: unparsable judge reply: "maybe"');
    for (const s of r.samples) expect(s.scores.latency_ms).toBe(s.latencyMs);
  });
});

describe("review fixes", () => {
  it("refuses non-string and duplicate ids, and malformed relevance, before running", () => {
    const base = dataset(3);
    const numeric = [{ ...base[0], id: 5 }, ...base.slice(1)] as unknown as EvalSample[];
    expect(() => new Benchmark({ dataset: numeric, metrics: [hit] })).toThrow(
      /sample 0: id must be a string, found the number 5/,
    );
    const dup = [base[0], { ...base[1], id: "q0" }] as EvalSample[];
    expect(() => new Benchmark({ dataset: dup, metrics: [hit] })).toThrow(
      /samples 0 and 1 share the id "q0"/,
    );
    const badRel = [{ ...base[0], relevance: null }] as unknown as EvalSample[];
    expect(() => new Benchmark({ dataset: badRel, metrics: [hit] })).toThrow(
      /relevance must be an object/,
    );
    const strGrade = [{ ...base[0], relevance: { "doc-0": "2" } }] as unknown as EvalSample[];
    expect(() => new Benchmark({ dataset: strGrade, metrics: [hit] })).toThrow(
      /relevance\["doc-0"\] must be a finite number/,
    );
  });

  it("refuses null retries and shard options with a ConfigurationError", async () => {
    const b = new Benchmark({ dataset: dataset(1), metrics: [exact] });
    await expect(b.run(perfectEngine, { name: "x", retries: null as never })).rejects.toThrow(
      ConfigurationError,
    );
    await expect(b.run(perfectEngine, { name: "x", shard: null as never })).rejects.toThrow(
      ConfigurationError,
    );
  });

  it("scores retrieval as null, with the reason, when an engine reports no chunks", async () => {
    const r = await new Benchmark({ dataset: dataset(2), metrics: [hit, exact] }).run(
      { query: async (_q, { sample }) => ({ answer: sample.expectedAnswers[0] as string }) },
      { name: "no-chunks" },
    );
    for (const s of r.samples) {
      expect(s.scores).toEqual({ hit: null, exact: 1 });
      expect(s.status).toBe("incomplete");
      expect(s.error).toMatch(/hit: the query engine returned no chunks/);
    }
    // An engine that reports an empty list retrieved nothing: that is a real 0.
    const empty = await new Benchmark({ dataset: dataset(1), metrics: [hit] }).run(
      { query: async () => ({ answer: "a", chunks: [] }) },
      { name: "empty" },
    );
    expect(empty.samples[0]?.scores.hit).toBe(0);
  });

  it("does not keep a sample whose scoring was cut short by an abort", async () => {
    const controller = new AbortController();
    const judge: Metric = {
      name: "judge",
      higherIsBetter: true,
      needsRelevantIds: false,
      needsAnswer: true,
      score: ({ sample, signal }) =>
        new Promise((resolve, reject) => {
          if (sample.id === "q0") return resolve(1);
          signal?.addEventListener("abort", () => reject(new Error("interrupted")));
          if (sample.id === "q1") setTimeout(() => controller.abort(), 5);
        }),
    };
    const error = await new Benchmark({ dataset: dataset(3), metrics: [judge], maxConcurrent: 1 })
      .run(perfectEngine, { name: "abort-scoring", signal: controller.signal })
      .catch((e: unknown) => e);
    expect(RunAbortedError.isInstance(error)).toBe(true);
    const partial = (error as RunAbortedError<{ samples: { sampleId?: string }[] }>).partial;
    expect(partial.samples.map((s) => s.sampleId)).toEqual(["q0"]);
  });
  it("scores metrics in order around promise-returning ones, with or without timeout and retries", async () => {
    const calls: string[] = [];
    const metric = (name: string, score: () => unknown): Metric => ({
      name,
      higherIsBetter: true,
      needsRelevantIds: false,
      needsAnswer: false,
      score: () => {
        calls.push(name);
        return score() as number | null;
      },
    });
    const metrics = [
      metric("nan", () => Number.NaN),
      metric("rejects", () => Promise.reject(new RangeError("no judge"))),
      metric("sync", () => 0.25),
      // biome-ignore lint/suspicious/noThenProperty: a thenable that is not a Promise is the point
      metric("thenable", () => ({ then: (resolve: (v: number) => void) => resolve(0.5) })),
      metric("throws", () => {
        throw new Error("boom");
      }),
      metric("async", async () => 1),
      metric("undefined", () => undefined),
    ];
    const options = [
      {},
      { timeoutMs: 60_000 },
      { retries: { attempts: 2, retryOn: () => false } },
      { signal: new AbortController().signal },
    ];
    const noId = { question: "question x", expectedAnswers: ["answer x"], relevantIds: [] };
    for (const extra of options) {
      calls.length = 0;
      const result = await new Benchmark({
        dataset: [...dataset(1), noId],
        metrics,
        maxConcurrent: 1,
      }).run(perfectEngine, { name: "order", ...extra });
      expect(calls).toEqual([...metrics.map((m) => m.name), ...metrics.map((m) => m.name)]);
      const [withId, without] = result.samples;
      expect(withId?.status).toBe("incomplete");
      expect(withId?.scores).toEqual({
        nan: null,
        rejects: null,
        sync: 0.25,
        thenable: 0.5,
        throws: null,
        async: 1,
        undefined: null,
      });
      expect(Object.keys(withId?.scores ?? {})).toEqual(metrics.map((m) => m.name));
      expect(withId?.error).toBe(
        "nan: returned NaN, expected a finite number or null; rejects: RangeError: no judge; throws: boom",
      );
      // Record fields in one order: the sample id, then the attempts (only with retries), last.
      const fields = [
        "question",
        "status",
        "scores",
        "answer",
        "retrievedIds",
        "retrievedUris",
        "latencyMs",
        "error",
      ];
      // Then format 2's fields: the kept chunks and the dataset sample's gold data.
      const kept = ["retrieved", "expectedAnswers", "relevantIds"];
      const attempts = "retries" in extra ? ["attempts"] : [];
      expect(Object.keys(withId ?? {})).toEqual([...fields, "sampleId", ...attempts, ...kept]);
      expect(Object.keys(without ?? {})).toEqual([...fields, ...attempts, ...kept]);
    }
  });
});

describe("a metric still pending when the run is aborted", () => {
  // A hung judge is given up ABORT_GRACE after the abort: lowered here so the tests stay quick.
  const grace = ABORT_GRACE.ms;
  beforeEach(() => {
    ABORT_GRACE.ms = 20;
  });
  afterEach(() => {
    ABORT_GRACE.ms = grace;
  });

  /**
   * Resolves with `promise`'s outcome, or with "still pending" after `ms` (instead of a test
   * timeout). The runs settle in tens of ms; `ms` leaves room for a loaded machine.
   */
  const within = (promise: Promise<unknown>, ms: number) =>
    Promise.race([promise.catch((e: unknown) => e), sleep(ms).then(() => "still pending")]);

  const judge = (
    score: (input: MetricInput) => number | null | Promise<number | null>,
  ): Metric => ({
    name: "judge",
    higherIsBetter: true,
    needsRelevantIds: false,
    needsAnswer: true,
    score,
  });

  it("does not hang the run, and leaves that sample for a resume", async () => {
    const controller = new AbortController();
    // q1's judge hangs and ignores its signal: only the run's abort can end the wait.
    const hanging = judge(({ sample }) => {
      if (sample.id === "q0") return Promise.resolve(1);
      setTimeout(() => controller.abort(new Error("user pressed ^C")), 5);
      return new Promise<number>(() => {});
    });
    const error = await within(
      new Benchmark({ dataset: dataset(3), metrics: [exact, hanging], maxConcurrent: 1 }).run(
        perfectEngine,
        { name: "hang", signal: controller.signal },
      ),
      20_000,
    );
    expect(RunAbortedError.isInstance(error)).toBe(true);
    const partial = (error as RunAbortedError<{ samples: { sampleId?: string }[] }>).partial;
    expect(partial.samples.map((s) => s.sampleId)).toEqual(["q0"]);
  });

  it("does not hang when the abort came during the target call, with or without timeout and retries", async () => {
    const hanging = judge(({ sample }) =>
      sample.id === "q0" ? Promise.resolve(1) : new Promise<number>(() => {}),
    );
    const options = [{}, { timeoutMs: 60_000 }, { retries: { attempts: 2, retryOn: () => true } }];
    for (const extra of options) {
      const controller = new AbortController();
      const engine: QueryEngine = {
        async query(q, o) {
          if (o.sample.id === "q1") controller.abort();
          return perfectEngine.query(q, o);
        },
      };
      const error = await within(
        new Benchmark({ dataset: dataset(3), metrics: [hanging], maxConcurrent: 1 }).run(engine, {
          name: "hang",
          signal: controller.signal,
          ...extra,
        }),
        20_000,
      );
      expect(RunAbortedError.isInstance(error), JSON.stringify(extra)).toBe(true);
      const partial = (error as RunAbortedError<{ samples: { sampleId?: string }[] }>).partial;
      expect(partial.samples.map((s) => s.sampleId)).toEqual(["q0"]);
    }
  });

  it("keeps the samples whose judge finishes within the grace after the abort", async () => {
    // Ctrl-C while 4 samples are in their 50 ms pipeline call: each call succeeds, then a 20 ms
    // judge scores it. Both were paid for: all 4 are kept, none left to run again.
    ABORT_GRACE.ms = 5_000;
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 10);
    const engine: QueryEngine = {
      async query(q, o) {
        await sleep(50);
        return perfectEngine.query(q, o);
      },
    };
    const slowJudge = judge(async ({ sample, answer }) => {
      await sleep(20);
      return answer === sample.expectedAnswers[0] ? 1 : 0;
    });
    const error = await within(
      new Benchmark({ dataset: dataset(8), metrics: [slowJudge], maxConcurrent: 4 }).run(engine, {
        name: "ctrl-c",
        signal: controller.signal,
      }),
      20_000,
    );
    expect(RunAbortedError.isInstance(error)).toBe(true);
    const partial = (error as RunAbortedError<{ samples: { sampleId?: string }[] }>).partial;
    expect(partial.samples.map((s) => s.sampleId)).toEqual(["q0", "q1", "q2", "q3"]);
  });

  it("adds two abort listeners per run, however many samples and metrics are pending (no leak warning)", async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on("warning", onWarning);
    try {
      const controller = new AbortController();
      let most = 0;
      const counting = judge(async () => {
        most = Math.max(most, getEventListeners(controller.signal, "abort").length);
        await sleep(2);
        return 1;
      });
      const result = await new Benchmark({
        dataset: dataset(60),
        metrics: [counting],
        maxConcurrent: 20,
      }).run(perfectEngine, { name: "many", signal: controller.signal });
      expect(result.status.successful).toBe(60);
      // One for the metric cutter, one for the samples' own signals (the judged sample's is live
      // while it is scored): a constant, not one per sample in flight.
      expect(most).toBe(2);
      await sleep(10);
      expect(warnings).not.toContain("MaxListenersExceededWarning");
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("keeps a sample whose async metrics settle without waiting on anything", async () => {
    // The abort arrives during q1's target call, which succeeds; its metric is async but already
    // settled, so q1 finished as before: only a metric still pending is cut short.
    const controller = new AbortController();
    const engine: QueryEngine = {
      async query(q, o) {
        if (o.sample.id === "q1") controller.abort();
        return perfectEngine.query(q, o);
      },
    };
    const asyncExact = judge(async ({ sample, answer }) => {
      await null;
      return answer === sample.expectedAnswers[0] ? 1 : 0;
    });
    const error = await within(
      new Benchmark({ dataset: dataset(4), metrics: [asyncExact], maxConcurrent: 1 }).run(engine, {
        name: "quick",
        signal: controller.signal,
      }),
      20_000,
    );
    expect(RunAbortedError.isInstance(error)).toBe(true);
    const partial = (
      error as RunAbortedError<{
        samples: { sampleId?: string; scores: Record<string, unknown> }[];
      }>
    ).partial;
    expect(partial.samples.map((s) => [s.sampleId, s.scores.judge])).toEqual([
      ["q0", 1],
      ["q1", 1],
    ]);
  });

  it("leaves no abort listener behind and no unhandled rejection from a metric cut short", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      // A run that is never aborted: every listener added for a pending metric is removed.
      const idle = new AbortController();
      const slow = judge(async () => {
        await sleep(1);
        return 1;
      });
      const result = await new Benchmark({
        dataset: dataset(30),
        metrics: [slow, exact, { ...slow, name: "judge2" }],
        maxConcurrent: 4,
      }).run(perfectEngine, { name: "idle", signal: idle.signal });
      expect(result.status.successful).toBe(30);
      expect(getEventListeners(idle.signal, "abort")).toHaveLength(0);

      // A judge that rejects after the abort cut it short (it ignores its signal).
      const controller = new AbortController();
      const late = judge(({ sample }) =>
        sample.id === "q0"
          ? 1
          : new Promise<number>((_, reject) => {
              setTimeout(() => controller.abort(), 5);
              setTimeout(() => reject(new Error("judge failed late")), 30);
            }),
      );
      const error = await within(
        new Benchmark({ dataset: dataset(3), metrics: [late], maxConcurrent: 1 }).run(
          perfectEngine,
          {
            name: "late",
            signal: controller.signal,
          },
        ),
        20_000,
      );
      expect(RunAbortedError.isInstance(error)).toBe(true);
      await sleep(60);
      expect(unhandled).toEqual([]);
      expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });
});

describe("the record keeps what the dataset held", () => {
  /** A target that overwrites the sample's question and id during its call. */
  const vandal = (seen: unknown[]): QueryEngine => ({
    async query(question, o) {
      seen.push(question);
      const sample = o.sample as { question: unknown; id: unknown };
      const answer = o.sample.expectedAnswers[0] as string;
      const chunks = [{ id: o.sample.relevantIds[0] ?? "x" }];
      sample.question = 42;
      sample.id = 7;
      return { answer, chunks };
    },
  });

  it("records the question and id read before the call, on every path", async () => {
    const options = [
      {},
      { timeoutMs: 60_000 },
      { signal: new AbortController().signal },
      { retries: { attempts: 2, retryOn: () => true } },
    ];
    for (const extra of options) {
      for (const metrics of [[exact], [{ ...exact, score: async () => 1 }]]) {
        const seen: unknown[] = [];
        const result = await new Benchmark({ dataset: dataset(2), metrics }).run(vandal(seen), {
          name: "v",
          ...extra,
        });
        const label = JSON.stringify(extra);
        expect(
          result.samples.map((s) => [s.question, s.sampleId]),
          label,
        ).toEqual([
          ["question 0", "q0"],
          ["question 1", "q1"],
        ]);
        expect(seen, label).toEqual(["question 0", "question 1"]);
      }
    }
  });

  it("records them for an errored sample, and a retry asks the question the dataset held", async () => {
    const seen: unknown[] = [];
    const failing: QueryEngine = {
      async query(question, o) {
        seen.push(question);
        (o.sample as { question: unknown }).question = 42;
        (o.sample as { id: unknown }).id = 7;
        throw new Error("transient");
      },
    };
    const result = await new Benchmark({ dataset: dataset(1), metrics: [exact] }).run(failing, {
      name: "v",
      retries: { attempts: 2, backoffMs: 1, retryOn: () => true },
    });
    expect(result.samples.map((s) => [s.status, s.question, s.sampleId, s.attempts])).toEqual([
      ["errored", "question 0", "q0", 2],
    ]);
    expect(seen).toEqual(["question 0", "question 0"]);
  });
});

describe("a run refused before its first sample", () => {
  /** File descriptors of this process open on `path` (Linux: /proc/self/fd). */
  function openDescriptors(path: string): number {
    let n = 0;
    for (const fd of readdirSync("/proc/self/fd")) {
      try {
        if (readlinkSync(`/proc/self/fd/${fd}`) === path) n++;
      } catch {
        // closed between the listing and the read
      }
    }
    return n;
  }

  it("leaves no journal, open or on disk, for a target whose cacheKey is refused", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bench-cachekey-"));
    const checkpoint = join(dir, "run.jsonl");
    try {
      let calls = 0;
      const target = {
        cacheKey: 42,
        async retrieve() {
          calls++;
          return [];
        },
      } as unknown as Retriever;
      const b = new Benchmark({ dataset: dataset(3), metrics: [hit] });
      const run = () => b.run(target, { name: "r", checkpoint, cache: new MemoryCache() });
      const error = await run().catch((e: unknown) => e);
      expect(ConfigurationError.isInstance(error), String(error)).toBe(true);
      expect((error as ConfigurationError).message).toMatch(/cacheKey must be a non-empty string/);
      expect(calls).toBe(0);
      expect(openDescriptors(checkpoint)).toBe(0);
      expect(existsSync(checkpoint)).toBe(false);
      // Refused again the same way: the journal was not left claimed either.
      await expect(run()).rejects.toThrow(/cacheKey must be a non-empty string/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
