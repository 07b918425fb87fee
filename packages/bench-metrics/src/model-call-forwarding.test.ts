/**
 * The judge and embed metrics forward the input's `reportUsage` and `limiter` to every model
 * call, with and without `timeoutMs`, so a judge built on a real client (e.g. `aiJudge`) can
 * report its tokens and share the run's rate limit.
 */
import type { CallLimiter, EvalSample, MetricInput, Usage } from "@fastrag/bench-core";
import { describe, expect, it } from "vitest";
import {
  AnswerCorrectness,
  AnswerRelevance,
  type EmbedFunction,
  Faithfulness,
  type JudgeFunction,
  type ModelCallOptions,
  SemanticSimilarity,
} from "./generation.js";

const sample: EvalSample = {
  id: "q1",
  question: "Where is the Eiffel Tower?",
  expectedAnswers: ["Paris"],
  relevantIds: [],
};

const limiter: CallLimiter = { run: (call) => call() };

function input(extra: Partial<MetricInput>): MetricInput {
  return {
    sample,
    answer: "In Paris.",
    retrieved: [{ id: "c0", text: "The Eiffel Tower is in Paris." }],
    latencyMs: 0,
    ...extra,
  };
}

/** Each metric with a model that records the options of every call it gets. */
function metrics(seen: ModelCallOptions[], timeoutMs?: number) {
  const judge =
    (reply: string): JudgeFunction =>
    (_prompt, options) => {
      seen.push(options);
      return reply;
    };
  const embed: EmbedFunction = (texts, options) => {
    seen.push(options);
    return texts.map(() => [1, 0]);
  };
  const t = timeoutMs === undefined ? {} : { timeoutMs };
  return [
    new AnswerCorrectness({ judge: judge('{"score": 1}'), ...t }),
    new AnswerRelevance({ judge: judge('{"score": 1}'), ...t }),
    new Faithfulness({ judge: judge('{"claims": [{"claim": "c", "supported": true}]}'), ...t }),
    new SemanticSimilarity({ embed, ...t }),
  ];
}

describe("model calls inside metrics", () => {
  for (const timeoutMs of [undefined, 60_000]) {
    it(`forward reportUsage and limiter (timeoutMs ${timeoutMs})`, async () => {
      const seen: ModelCallOptions[] = [];
      const reported: Usage[] = [];
      const reportUsage = (u: Usage): void => {
        reported.push(u);
      };
      for (const m of metrics(seen, timeoutMs)) {
        expect(await m.score(input({ reportUsage, limiter }))).toBe(1);
      }
      expect(seen).toHaveLength(4);
      for (const options of seen) {
        expect(options.reportUsage).toBe(reportUsage);
        expect(options.limiter).toBe(limiter);
        expect(options.signal).toBeInstanceOf(AbortSignal);
      }
    });

    it(`forward each one alone, and neither when absent (timeoutMs ${timeoutMs})`, async () => {
      const reportUsage = (_u: Usage): void => {};
      const cases: [Partial<MetricInput>, string[]][] = [
        [{}, ["signal"]],
        [{ reportUsage }, ["reportUsage", "signal"]],
        [{ limiter }, ["limiter", "signal"]],
      ];
      for (const [extra, keys] of cases) {
        const seen: ModelCallOptions[] = [];
        for (const m of metrics(seen, timeoutMs)) await m.score(input(extra));
        expect(seen).toHaveLength(4);
        for (const options of seen) expect(Object.keys(options).sort()).toEqual(keys);
      }
    });
  }

  it("let a judge report through the sink it is handed", async () => {
    const reported: Usage[] = [];
    const judge: JudgeFunction = (_prompt, { reportUsage }) => {
      reportUsage?.({ inputTokens: 12, outputTokens: 3, totalTokens: 15 });
      return '{"score": 0.5}';
    };
    const m = new AnswerCorrectness({ judge });
    const score = await m.score(input({ reportUsage: (u) => reported.push(u) }));
    expect(score).toBe(0.5);
    expect(reported).toEqual([{ inputTokens: 12, outputTokens: 3, totalTokens: 15 }]);
  });
});
