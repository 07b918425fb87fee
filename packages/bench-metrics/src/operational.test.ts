import {
  Benchmark,
  ConfigurationError,
  type MetricInput,
  MetricUnavailableError,
  type Usage,
} from "@fastrag/bench-core";
import { describe, expect, it } from "vitest";
import { Cost, Latency, Tokens } from "./operational.js";

function input(usage?: Usage, latencyMs = 12.5): MetricInput {
  return {
    sample: { question: "q", expectedAnswers: [], relevantIds: [] },
    answer: "a",
    retrieved: [],
    latencyMs,
    ...(usage === undefined ? {} : { usage }),
  };
}

describe("operational metrics", () => {
  it("have the names and directions of DESIGN §3", () => {
    const all = [new Latency(), new Tokens(), new Cost()];
    expect(all.map((m) => m.name)).toEqual(["latency_ms", "tokens", "cost"]);
    for (const m of all) {
      expect([m.higherIsBetter, m.needsAnswer, m.needsRelevantIds]).toEqual([false, false, false]);
    }
    expect(new Latency({ name: "wall_ms" }).name).toBe("wall_ms");
  });

  it("Latency is the measured latency", () => {
    expect(new Latency().score(input(undefined, 42))).toBe(42);
  });

  it("Tokens reads totalTokens, else input + output, else null", () => {
    const t = new Tokens();
    expect(t.score(input({ totalTokens: 100, inputTokens: 1, outputTokens: 2 }))).toBe(100);
    expect(t.score(input({ inputTokens: 70, outputTokens: 30 }))).toBe(100);
    expect(t.score(input({ inputTokens: 70 }))).toBe(70);
    expect(t.score(input({ cost: 0.1 }))).toBeNull();
    expect(t.score(input())).toBeNull();
    expect(t.score(input({ totalTokens: 0 }))).toBe(0);
    expect(() => t.score(input({ totalTokens: -1 }))).toThrow(
      /usage.totalTokens must be a non-negative number, found the number -1/,
    );
    expect(() => t.score(input({ inputTokens: "7" as unknown as number }))).toThrow(
      /found the string "7"/,
    );
  });

  it("Cost reads usage.cost, else null", () => {
    const c = new Cost();
    expect(c.score(input({ cost: 0.0021 }))).toBe(0.0021);
    expect(c.score(input({ totalTokens: 3 }))).toBeNull();
    expect(c.score(input())).toBeNull();
    expect(() => c.score(input({ cost: Number.NaN }))).toThrow(/usage.cost must be/);
  });

  it("Latency is null, not undefined, for an input without a latency", () => {
    // A harness of your own that does not time its calls: not scorable (as a result's latencyMs
    // is null when never measured), and `undefined` is no score at all.
    const untimed = { ...input(), latencyMs: undefined } as unknown as MetricInput;
    expect(new Latency().score(untimed)).toBeNull();
    expect(
      new Latency().score({ ...input(), latencyMs: null } as unknown as MetricInput),
    ).toBeNull();
    expect(new Latency().score(input(undefined, 0))).toBe(0);
  });

  it("Latency refuses a latency that is not a non-negative number", () => {
    for (const [bad, found] of [
      ["12", 'the string "12"'],
      [Number.NaN, "the number NaN"],
      [-1, "the number -1"],
      [Number.POSITIVE_INFINITY, "the number Infinity"],
    ] as const) {
      const i = { ...input(), latencyMs: bad } as unknown as MetricInput;
      let error: unknown;
      try {
        new Latency().score(i);
      } catch (e) {
        error = e;
      }
      expect(ConfigurationError.isInstance(error), `latencyMs ${found}`).toBe(true);
      expect((error as Error).message).toBe(
        `Latency.score: input.latencyMs must be a non-negative number of milliseconds, found ${found}`,
      );
    }
  });

  it("Tokens and Cost refuse a usage that is not an object; a bad count is a per-sample reason", () => {
    for (const [metric, name] of [
      [new Tokens(), "Tokens"],
      [new Cost(), "Cost"],
    ] as const) {
      for (const [usage, found] of [
        ["12", 'the string "12"'],
        [12, "the number 12"],
        [[1, 2], "an array of 2 items"],
      ] as const) {
        const i = { ...input(), usage } as unknown as MetricInput;
        expect(() => metric.score(i)).toThrow(ConfigurationError);
        expect(() => metric.score(i)).toThrow(
          `${name}.score: input.usage must be an object such as { totalTokens, cost }, found ${found}`,
        );
      }
      expect(metric.score({ ...input(), usage: null } as unknown as MetricInput)).toBeNull();
    }
    // The runner passes the engine's counts on unchecked: a bad one makes that sample unscorable.
    const text = { ...input(), usage: { totalTokens: "12" } } as unknown as MetricInput;
    expect(() => new Tokens().score(text)).toThrow(MetricUnavailableError);
    expect(() => new Tokens().score(text)).toThrow(
      'usage.totalTokens must be a non-negative number, found the string "12"',
    );
    const cost = { ...input(), usage: { cost: "0.1" } } as unknown as MetricInput;
    expect(() => new Cost().score(cost)).toThrow(MetricUnavailableError);
  });

  it("score through the runner: null when the engine reports no usage", async () => {
    let n = 0;
    const engine = {
      query: async () => {
        n++;
        return n === 1 ? { answer: "x", usage: { totalTokens: 9, cost: 0.5 } } : { answer: "y" };
      },
    };
    const result = await new Benchmark({
      dataset: [
        { id: "1", question: "q", expectedAnswers: [], relevantIds: [] },
        { id: "2", question: "r", expectedAnswers: [], relevantIds: [] },
      ],
      metrics: [new Tokens(), new Cost(), new Latency()],
      maxConcurrent: 1,
    }).run(engine, { name: "ops" });
    const first = result.samples[0];
    expect(first?.scores.tokens).toBe(9);
    expect(first?.scores.cost).toBe(0.5);
    // The result rounds the recorded latency; the metric saw the raw measurement.
    expect(first?.scores.latency_ms).toBeCloseTo(first?.latencyMs as number, 2);
    expect(result.samples[1]?.scores.tokens).toBeNull();
    expect(result.samples[1]?.scores.cost).toBeNull();
    // No usage reported: Tokens and Cost do not apply, which is not a failure.
    expect(result.samples[1]?.status).toBe("successful");
    expect(result.higherIsBetter).toEqual({ tokens: false, cost: false, latency_ms: false });
  });
});
