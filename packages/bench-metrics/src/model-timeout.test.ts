import { getEventListeners } from "node:events";
/**
 * The `timeoutMs` option of the metrics that call a caller-supplied model (the three judge
 * metrics and `SemanticSimilarity`): each call gets a signal that also aborts on the timeout, and
 * a model that ignores it still cannot hold the sample — or the run — forever.
 */
import {
  Benchmark,
  ConfigurationError,
  type EvalSample,
  type Metric,
  type MetricInput,
  MetricUnavailableError,
} from "@fastrag/bench-core";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  AnswerCorrectness,
  AnswerRelevance,
  type EmbedFunction,
  Faithfulness,
  type JudgeFunction,
  SemanticSimilarity,
} from "./generation.js";

const sample: EvalSample = {
  id: "q1",
  question: "Where is the Eiffel Tower?",
  expectedAnswers: ["Paris"],
  relevantIds: [],
};

function input(signal?: AbortSignal): MetricInput {
  return {
    sample,
    answer: "In Paris.",
    retrieved: [{ id: "c0", text: "The Eiffel Tower is in Paris." }],
    latencyMs: 0,
    ...(signal === undefined ? {} : { signal }),
  };
}

/** A model call that never settles and ignores its signal (a hung HTTP call). */
const never = (): Promise<never> => new Promise<never>(() => {});

/** Each metric built with a model that never settles, and the kind of call it makes. */
const hung: readonly (readonly [string, "judge" | "embed", (timeoutMs?: number) => Metric])[] = [
  ["AnswerCorrectness", "judge", (timeoutMs) => new AnswerCorrectness({ judge: never, timeoutMs })],
  ["AnswerRelevance", "judge", (timeoutMs) => new AnswerRelevance({ judge: never, timeoutMs })],
  ["Faithfulness", "judge", (timeoutMs) => new Faithfulness({ judge: never, timeoutMs })],
  [
    "SemanticSimilarity",
    "embed",
    (timeoutMs) => new SemanticSimilarity({ embed: never, timeoutMs }),
  ],
];

/** Builds any of the four metrics from options, for the validation tests. */
const makers: readonly (readonly [string, (o: object) => Metric])[] = [
  ["AnswerCorrectness", (o) => new AnswerCorrectness({ judge: never, ...o } as never)],
  ["AnswerRelevance", (o) => new AnswerRelevance({ judge: never, ...o } as never)],
  ["Faithfulness", (o) => new Faithfulness({ judge: never, ...o } as never)],
  ["SemanticSimilarity", (o) => new SemanticSimilarity({ embed: never, ...o } as never)],
];

afterEach(() => {
  vi.useRealTimers();
});

describe("timeoutMs: validation", () => {
  it("refuses anything but a positive number of milliseconds, naming metric, option and value", () => {
    const bad: [unknown, string][] = [
      [0, "the number 0"],
      [-1, "the number -1"],
      [Number.NaN, "the number NaN"],
      [Number.POSITIVE_INFINITY, "the number Infinity"],
      ["30s", 'the string "30s"'],
      [null, "null"],
      [2 ** 31, "the number 2147483648"], // past the longest setTimeout delay, which would fire at once
    ];
    for (const [metric, make] of makers) {
      for (const [value, shown] of bad) {
        let thrown: unknown;
        try {
          make({ timeoutMs: value });
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(ConfigurationError);
        expect((thrown as Error).message).toBe(
          `${metric}: option timeoutMs must be a positive number of milliseconds (at most 2147483647), found ${shown}`,
        );
      }
      for (const ok of [1, 0.5, 30_000, 2_147_483_647]) {
        expect(make({ timeoutMs: ok, name: "m" }).name).toBe("m");
      }
    }
  });

  it("still refuses unknown option names, and lists timeoutMs among the known ones", () => {
    for (const [metric, make] of makers) {
      const known =
        metric === "SemanticSimilarity"
          ? "embed, name, timeoutMs"
          : "judge, name, prompt, timeoutMs";
      expect(() => make({ timeout: 30_000 })).toThrow(
        `${metric}: unknown option "timeout"; expected ${known}`,
      );
    }
  });
});

describe("timeoutMs: a model that never settles", () => {
  it("stops each metric at the limit with a MetricUnavailableError, not before", async () => {
    vi.useFakeTimers();
    for (const [, kind, make] of hung) {
      const outcome = Promise.resolve(make(30_000).score(input())).then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      );
      let settled = false;
      void outcome.then(() => {
        settled = true;
      });
      await vi.advanceTimersByTimeAsync(29_999);
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      const { error } = (await outcome) as { error: Error };
      expect(MetricUnavailableError.isInstance(error)).toBe(true);
      expect(error.message).toBe(`${kind} call timed out after 30000 ms`);
      expect(vi.getTimerCount()).toBe(0);
    }
  });

  it("aborts the signal the model was given, with a TimeoutError reason", async () => {
    const seen: AbortSignal[] = [];
    const judge: JudgeFunction = (_prompt, { signal }) => {
      seen.push(signal);
      return never();
    };
    const run = new AbortController();
    await expect(
      new AnswerRelevance({ judge, timeoutMs: 5 }).score(input(run.signal)),
    ).rejects.toThrow("judge call timed out after 5 ms");
    expect(seen).toHaveLength(1);
    expect(seen[0]).not.toBe(run.signal);
    expect(seen[0]?.aborted).toBe(true);
    const reason = seen[0]?.reason as DOMException | undefined;
    expect(reason?.name).toBe("TimeoutError");
    expect(reason?.message).toBe("judge call timed out after 5 ms");
    expect(run.signal.aborted).toBe(false); // the run goes on
  });

  it("ends a real Benchmark run: every sample incomplete, scores null, the timeout as the reason", async () => {
    const dataset = [
      { id: "a", question: "q1", expectedAnswers: ["x"], relevantIds: [] },
      { id: "b", question: "q2", expectedAnswers: ["y"], relevantIds: [] },
    ];
    const engine = {
      query: async () => ({ answer: "an answer", chunks: [{ id: "c", text: "a passage" }] }),
    };
    const started = Date.now();
    const result = await new Benchmark({
      dataset,
      metrics: hung.map(([, , make]) => make(20)),
    }).run(engine, { name: "hung judge" });
    // Hung calls never settle: without the timeouts the run would not end at all.
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(result.samples).toHaveLength(2);
    for (const s of result.samples) {
      expect(s.status).toBe("incomplete");
      expect(s.scores).toEqual({
        answer_correctness: null,
        answer_relevance: null,
        faithfulness: null,
        semantic_similarity: null,
      });
      expect(s.error).toMatch(
        /^answer_correctness: (MetricUnavailableError: )?judge call timed out after 20 ms; answer_relevance: (MetricUnavailableError: )?judge call timed out after 20 ms; faithfulness: (MetricUnavailableError: )?judge call timed out after 20 ms; semantic_similarity: (MetricUnavailableError: )?embed call timed out after 20 ms$/,
      );
    }
  });
});

describe("timeoutMs: a call that settles in time", () => {
  it("returns the model's result and leaves no timer behind", async () => {
    vi.useFakeTimers();
    const judge: JudgeFunction = async () => '{"score": 0.75}';
    expect(await new AnswerCorrectness({ judge, timeoutMs: 60_000 }).score(input())).toBe(0.75);
    expect(vi.getTimerCount()).toBe(0);
    const embed: EmbedFunction = async (texts) => texts.map(() => [1, 0]);
    expect(await new SemanticSimilarity({ embed, timeoutMs: 60_000 }).score(input())).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
    // A judge that throws, at once or later, clears its timer too and keeps its own reason.
    const throwing: JudgeFunction = () => {
      throw new Error("no API key");
    };
    await expect(
      new Faithfulness({ judge: throwing, timeoutMs: 60_000 }).score(input()),
    ).rejects.toThrow("no API key");
    const rejecting: JudgeFunction = async () => {
      throw new Error("HTTP 500");
    };
    await expect(
      new Faithfulness({ judge: rejecting, timeoutMs: 60_000 }).score(input()),
    ).rejects.toThrow("HTTP 500");
    expect(vi.getTimerCount()).toBe(0);
  });

  it("lets a Benchmark run with a long timeoutMs and a fast judge end promptly", async () => {
    const judge: JudgeFunction = async () => '{"score": 1}';
    const timers = (): number =>
      process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
    const before = timers(); // vitest's own, e.g. the test's time limit
    const started = Date.now();
    const result = await new Benchmark({
      dataset: [{ id: "a", question: "q", expectedAnswers: ["x"], relevantIds: [] }],
      metrics: [new AnswerCorrectness({ judge, timeoutMs: 600_000 })],
    }).run({ query: async () => ({ answer: "x" }) }, { name: "fast judge" });
    expect(result.samples[0]?.scores.answer_correctness).toBe(1);
    expect(result.samples[0]?.status).toBe("successful");
    // Far from the 10-minute timeout, with room for a loaded machine.
    expect(Date.now() - started).toBeLessThan(20_000);
    // No 10-minute timer keeps the process alive once the run is over.
    expect(timers()).toBe(before);
  });
});

describe("timeoutMs: a call that settles after the timeout", () => {
  it("is ignored: a late rejection is no unhandled rejection, a late reply no score", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => {
      unhandled.push(reason);
    };
    process.on("unhandledRejection", onUnhandled);
    try {
      const late = (ms: number, fail: boolean) => (): Promise<string> =>
        new Promise((resolve, reject) =>
          setTimeout(
            () => (fail ? reject(new Error("late HTTP 500")) : resolve('{"score": 1}')),
            ms,
          ),
        );
      await expect(
        new AnswerCorrectness({ judge: late(60, true), timeoutMs: 10 }).score(input()),
      ).rejects.toThrow("judge call timed out after 10 ms");
      await expect(
        new AnswerCorrectness({ judge: late(60, false), timeoutMs: 10 }).score(input()),
      ).rejects.toThrow("judge call timed out after 10 ms");
      // Let both abandoned calls settle, and Node report an unhandled rejection if there is one.
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });
});

describe("timeoutMs: the run's signal", () => {
  it("still aborts the model's signal, with the run's reason, and stops listening once settled", async () => {
    const seen: AbortSignal[] = [];
    const judge: JudgeFunction = (_prompt, { signal }) => {
      seen.push(signal);
      return new Promise((_resolve, reject) =>
        signal.addEventListener("abort", () => reject(signal.reason), { once: true }),
      );
    };
    const run = new AbortController();
    const removed = vi.spyOn(run.signal, "removeEventListener");
    const pending = new AnswerCorrectness({ judge, timeoutMs: 60_000 }).score(input(run.signal));
    expect(seen[0]).not.toBe(run.signal);
    expect(seen[0]?.aborted).toBe(false);
    const reason = new Error("user pressed Ctrl-C");
    run.abort(reason);
    expect(seen[0]?.aborted).toBe(true);
    expect(seen[0]?.reason).toBe(reason);
    await expect(pending).rejects.toBe(reason);
    // A run already aborted gives an aborted signal at once.
    let first: AbortSignal | undefined;
    const peek: JudgeFunction = async (_prompt, { signal }) => {
      first = signal;
      return '{"score": 1}';
    };
    await new AnswerCorrectness({ judge: peek, timeoutMs: 60_000 }).score(input(run.signal));
    expect(first?.aborted).toBe(true);
    expect(first?.reason).toBe(reason);
    // It stops listening to the run's signal once the call has settled: a run of many
    // calls keeps no listener (nor signal) per call.
    expect(removed).toHaveBeenCalledWith("abort", expect.any(Function));
    const live = new AbortController();
    for (let i = 0; i < 3; i++) {
      await new AnswerCorrectness({ judge: peek, timeoutMs: 60_000 }).score(input(live.signal));
    }
    expect(getEventListeners(live.signal, "abort")).toHaveLength(0);
  });

  it("without timeoutMs, is passed as is and no timer is set (the idle signal outside a run)", async () => {
    vi.useFakeTimers();
    const seen: AbortSignal[] = [];
    const judge: JudgeFunction = (_prompt, { signal }) => {
      seen.push(signal);
      return never();
    };
    const embed: EmbedFunction = (_texts, { signal }) => {
      seen.push(signal);
      return never();
    };
    const run = new AbortController();
    void new AnswerCorrectness({ judge }).score(input(run.signal));
    void new Faithfulness({ judge }).score(input(run.signal));
    void new SemanticSimilarity({ embed }).score(input(run.signal));
    void new AnswerRelevance({ judge }).score(input());
    void new AnswerRelevance({ judge }).score(input());
    await vi.advanceTimersByTimeAsync(0);
    expect(seen.slice(0, 3).every((s) => s === run.signal)).toBe(true);
    expect(seen[3]).toBe(seen[4]); // the same idle signal, as before
    expect(seen[3]?.aborted).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });
});
