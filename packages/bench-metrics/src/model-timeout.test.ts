import { getEventListeners } from "node:events";
/**
 * The `timeoutMs` option of the metrics that call a caller-supplied model (the judge metrics and
 * `SemanticSimilarity`): each call gets a signal that also aborts on the timeout, and a model that
 * ignores it still cannot hold the sample — or the run — forever. The judge metrics have a
 * default limit (DEFAULT_JUDGE_TIMEOUT_MS); SemanticSimilarity has none unless given.
 */
import {
  Benchmark,
  ConfigurationError,
  type EvalSample,
  type Metric,
  type MetricInput,
  MetricUnavailableError,
} from "@fastrag/bench-core";
import { fakeEmbed, scriptedJudge } from "@fastrag/bench-core/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  AnswerCorrectness,
  AnswerRelevancy,
  ContextPrecision,
  ContextRecall,
  DEFAULT_JUDGE_TIMEOUT_MS,
  type EmbedFunction,
  FactualCorrectness,
  Faithfulness,
  type JudgeFunction,
  NoiseSensitivity,
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

const embed = fakeEmbed(() => [1, 0]);
/** Answers every step this file asks with a valid reply. */
const fast = scriptedJudge({
  attributions: () => ({ attributions: [{ statement: "x", reason: "", attributed: 1 }] }),
});

/**
 * Each metric built with a model that never settles (a function of its own, so that metrics do
 * not share its steps), the kind of call it makes, and the step that hangs (the first it asks;
 * null for an embed call outside a judge step).
 */
const hung: readonly (readonly [
  string,
  "judge" | "embed",
  string | null,
  (timeoutMs?: number) => Metric,
])[] = [
  [
    "Faithfulness",
    "judge",
    "statements",
    (timeoutMs) => new Faithfulness({ judge: () => never(), timeoutMs }),
  ],
  [
    "ContextPrecision",
    "judge",
    "context_verdict",
    (timeoutMs) => new ContextPrecision({ judge: () => never(), timeoutMs }),
  ],
  [
    "ContextRecall",
    "judge",
    "attributions",
    (timeoutMs) => new ContextRecall({ judge: () => never(), timeoutMs }),
  ],
  [
    "AnswerRelevancy",
    "judge",
    "question_generation",
    (timeoutMs) => new AnswerRelevancy({ judge: () => never(), embed, timeoutMs }),
  ],
  [
    "FactualCorrectness",
    "judge",
    "claims",
    (timeoutMs) => new FactualCorrectness({ judge: () => never(), timeoutMs }),
  ],
  [
    "NoiseSensitivity",
    "judge",
    "statements",
    (timeoutMs) => new NoiseSensitivity({ judge: () => never(), timeoutMs }),
  ],
  [
    "AnswerCorrectness",
    "judge",
    "statements",
    (timeoutMs) => new AnswerCorrectness({ judge: () => never(), embed, timeoutMs }),
  ],
  [
    "SemanticSimilarity",
    "embed",
    null,
    (timeoutMs) => new SemanticSimilarity({ embed: () => never(), timeoutMs }),
  ],
];

/** Builds any of the metrics from options, for the validation tests, and the options it takes. */
const makers: readonly (readonly [string, string, (o: object) => Metric])[] = [
  ["Faithfulness", "", (o) => new Faithfulness({ judge: never, ...o } as never)],
  ["ContextPrecision", ", against", (o) => new ContextPrecision({ judge: never, ...o } as never)],
  ["ContextRecall", "", (o) => new ContextRecall({ judge: never, ...o } as never)],
  [
    "AnswerRelevancy",
    ", embed, strictness",
    (o) => new AnswerRelevancy({ judge: never, embed, ...o } as never),
  ],
  [
    "FactualCorrectness",
    ", mode, beta, atomicity, coverage",
    (o) => new FactualCorrectness({ judge: never, ...o } as never),
  ],
  ["NoiseSensitivity", ", mode", (o) => new NoiseSensitivity({ judge: never, ...o } as never)],
  [
    "AnswerCorrectness",
    ", embed, weights, beta",
    (o) => new AnswerCorrectness({ judge: never, embed, ...o } as never),
  ],
  ["SemanticSimilarity", "", (o) => new SemanticSimilarity({ embed: never, ...o } as never)],
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
    for (const [metric, , make] of makers) {
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
    for (const [metric, own, make] of makers) {
      const known =
        metric === "SemanticSimilarity"
          ? "embed, name, timeoutMs"
          : `judge, name, prompts, timeoutMs${own}`;
      expect(() => make({ timeout: 30_000 })).toThrow(
        `${metric}: unknown option "timeout"; expected ${known}`,
      );
    }
  });

  it("the judge metrics' default limit is 2 minutes", () => {
    expect(DEFAULT_JUDGE_TIMEOUT_MS).toBe(120_000);
  });
});

describe("timeoutMs: a model that never settles", () => {
  it("stops each metric at the limit with a MetricUnavailableError, not before", async () => {
    vi.useFakeTimers();
    for (const [metric, kind, step, make] of hung) {
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
      const { error } = (await outcome) as { error: MetricUnavailableError };
      expect(MetricUnavailableError.isInstance(error), metric).toBe(true);
      // A judge step's timeout names the step.
      const prefix = step === null ? "" : `step ${step}: `;
      expect(error.message).toBe(`${prefix}${kind} call timed out after 30000 ms`);
      expect(error.step).toBe(step ?? undefined);
      expect(vi.getTimerCount()).toBe(0);
    }
  });

  it("a judge metric without timeoutMs stops at DEFAULT_JUDGE_TIMEOUT_MS (2 minutes)", async () => {
    vi.useFakeTimers();
    for (const [metric, kind, step, make] of hung) {
      if (kind !== "judge") continue;
      const outcome = Promise.resolve(make().score(input())).then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      );
      let settled = false;
      void outcome.then(() => {
        settled = true;
      });
      await vi.advanceTimersByTimeAsync(119_999);
      expect(settled, metric).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      const { error } = (await outcome) as { error: Error };
      expect(MetricUnavailableError.isInstance(error), metric).toBe(true);
      expect(error.message).toBe(`step ${step}: judge call timed out after 120000 ms`);
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
      new AnswerRelevancy({ judge, embed, strictness: 1, timeoutMs: 5 }).score(input(run.signal)),
    ).rejects.toThrow("step question_generation: judge call timed out after 5 ms");
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
      // Limits that grow in the metrics' order: see "metrics that fail out of order" in
      // judge-steps.test.ts for why they do not all end at once.
      metrics: hung.map(([, , , make], i) => make(20 + 10 * i)),
    }).run(engine, { name: "hung judge", keepChunkText: true });
    // Hung calls never settle: without the timeouts the run would not end at all.
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(result.samples).toHaveLength(2);
    for (const s of result.samples) {
      expect(s.status).toBe("incomplete");
      expect(s.scores).toEqual({
        faithfulness: null,
        context_precision: null,
        context_recall: null,
        answer_relevancy: null,
        factual_correctness: null,
        noise_sensitivity: null,
        answer_correctness: null,
        semantic_similarity: null,
      });
      const names = [
        "faithfulness",
        "context_precision",
        "context_recall",
        "answer_relevancy",
        "factual_correctness",
        "noise_sensitivity",
        "answer_correctness",
        "semantic_similarity",
      ];
      const expected = hung
        .map(([, kind, step], i) => {
          const prefix = step === null ? "" : `step ${step}: `;
          return `${names[i]}: (MetricUnavailableError: )?${prefix}${kind} call timed out after ${20 + 10 * i} ms`;
        })
        .join("; ");
      expect(s.error).toMatch(new RegExp(`^${expected}$`));
    }
  });
});

describe("timeoutMs: a call that settles in time", () => {
  it("returns the model's result and leaves no timer behind", async () => {
    vi.useFakeTimers();
    const judge = scriptedJudge({
      attributions: () =>
        '{"attributions": [{"statement": "a", "reason": "", "attributed": 1}, {"statement": "b", "reason": "", "attributed": 0}]}',
    });
    expect(await new ContextRecall({ judge, timeoutMs: 60_000 }).score(input())).toBe(1 / 2);
    expect(vi.getTimerCount()).toBe(0);
    // The default limit's timer too.
    expect(await new ContextRecall({ judge }).score(input())).toBe(1 / 2);
    expect(vi.getTimerCount()).toBe(0);
    const embed: EmbedFunction = async (texts) => texts.map(() => [1, 0]);
    expect(await new SemanticSimilarity({ embed, timeoutMs: 60_000 }).score(input())).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
    // A judge that throws, at once or later, clears its timer too and keeps its own reason.
    const throwing: JudgeFunction = () => {
      throw new Error("no API key");
    };
    await expect(
      new ContextRecall({ judge: throwing, timeoutMs: 60_000 }).score(input()),
    ).rejects.toThrow("no API key");
    const rejecting: JudgeFunction = async () => {
      throw new Error("HTTP 500");
    };
    await expect(new ContextRecall({ judge: rejecting }).score(input())).rejects.toThrow(
      "HTTP 500",
    );
    expect(vi.getTimerCount()).toBe(0);
  });

  it("lets a Benchmark run with a long timeoutMs and a fast judge end promptly", async () => {
    const judge = fast;
    const timers = (): number =>
      process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
    const before = timers(); // vitest's own, e.g. the test's time limit
    const started = Date.now();
    const result = await new Benchmark({
      dataset: [{ id: "a", question: "q", expectedAnswers: ["x"], relevantIds: [] }],
      metrics: [
        new ContextRecall({ judge, timeoutMs: 600_000 }),
        // The default 2-minute limit leaves no timer behind either.
        new ContextRecall({ judge, name: "default limit" }),
      ],
    }).run(
      { query: async () => ({ answer: "x", chunks: [{ id: "c", text: "t" }] }) },
      { name: "fast judge", keepChunkText: true },
    );
    expect(result.samples[0]?.scores).toEqual({ context_recall: 1, "default limit": 1 });
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
      const reply = '{"attributions": [{"statement": "a", "reason": "", "attributed": 1}]}';
      const late = (ms: number, fail: boolean) => (): Promise<string> =>
        new Promise((resolve, reject) =>
          setTimeout(() => (fail ? reject(new Error("late HTTP 500")) : resolve(reply)), ms),
        );
      await expect(
        new ContextRecall({ judge: late(60, true), timeoutMs: 10 }).score(input()),
      ).rejects.toThrow("step attributions: judge call timed out after 10 ms");
      await expect(
        new ContextRecall({ judge: late(60, false), timeoutMs: 10 }).score(input()),
      ).rejects.toThrow("step attributions: judge call timed out after 10 ms");
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
    const pending = new ContextRecall({ judge, timeoutMs: 60_000 }).score(input(run.signal));
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
      return { attributions: [{ statement: "a", reason: "", attributed: 1 }] };
    };
    await new ContextRecall({ judge: peek, timeoutMs: 60_000 }).score(input(run.signal));
    expect(first?.aborted).toBe(true);
    expect(first?.reason).toBe(reason);
    // It stops listening to the run's signal once the call has settled: a run of many
    // calls keeps no listener (nor signal) per call.
    expect(removed).toHaveBeenCalledWith("abort", expect.any(Function));
    const live = new AbortController();
    for (let i = 0; i < 3; i++) {
      await new ContextRecall({ judge: peek, timeoutMs: 60_000 }).score(input(live.signal));
    }
    expect(getEventListeners(live.signal, "abort")).toHaveLength(0);
  });

  it("SemanticSimilarity without timeoutMs: the signal as is, no timer (the idle one outside a run)", async () => {
    vi.useFakeTimers();
    const seen: AbortSignal[] = [];
    const embed: EmbedFunction = (_texts, { signal }) => {
      seen.push(signal);
      return never();
    };
    const run = new AbortController();
    void new SemanticSimilarity({ embed }).score(input(run.signal));
    void new SemanticSimilarity({ embed }).score(input());
    void new SemanticSimilarity({ embed }).score(input());
    await vi.advanceTimersByTimeAsync(0);
    expect(seen[0]).toBe(run.signal);
    expect(seen[1]).toBe(seen[2]); // the same idle signal
    expect(seen[1]?.aborted).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("a judge metric without timeoutMs: a signal of the call's own, under the default timer", async () => {
    vi.useFakeTimers();
    const seen: AbortSignal[] = [];
    const judge: JudgeFunction = (_prompt, { signal }) => {
      seen.push(signal);
      return never();
    };
    const run = new AbortController();
    void new ContextRecall({ judge }).score(input(run.signal)).catch(() => {});
    await vi.advanceTimersByTimeAsync(0);
    expect(seen).toHaveLength(1);
    expect(seen[0]).not.toBe(run.signal);
    expect(vi.getTimerCount()).toBe(1);
    const reason = new Error("stop");
    run.abort(reason);
    expect(seen[0]?.aborted).toBe(true);
    expect(seen[0]?.reason).toBe(reason);
    await vi.advanceTimersByTimeAsync(DEFAULT_JUDGE_TIMEOUT_MS);
    expect(vi.getTimerCount()).toBe(0);
  });
});
