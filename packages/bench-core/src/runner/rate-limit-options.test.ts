import { describe, expect, it } from "vitest";
import { Benchmark } from "../benchmark.js";
import { ConfigurationError } from "../errors.js";
import type { EvalSample, Metric } from "../types.js";

const samples = (n: number): EvalSample[] =>
  Array.from({ length: n }, (_, i) => ({
    id: `q${i}`,
    question: `question ${i}`,
    expectedAnswers: [`a${i}`],
    relevantIds: [],
  }));

const answered: Metric = {
  name: "answered",
  higherIsBetter: true,
  needsRelevantIds: false,
  needsAnswer: true,
  score: ({ answer }) => (answer === null ? null : 1),
};

describe("rateLimit options", () => {
  const base = { dataset: samples(1), metrics: [answered] };
  it.each([
    [
      { requestsPerMinute: 0 },
      /rateLimit\.requestsPerMinute must be a positive number, found the number 0/,
    ],
    [{ tokensPerMinute: Number.NaN }, /rateLimit\.tokensPerMinute must be a positive number/],
    [{ adaptive: "yes" }, /rateLimit\.adaptive must be true or false, found the string "yes"/],
    [{ isRateLimit: 429 }, /rateLimit\.isRateLimit must be a function/],
    [
      { maxWaits: 1.5 },
      /rateLimit\.maxWaits must be a non-negative integer, found the number 1\.5/,
    ],
    [{ rpm: 100 }, /rateLimit has an unknown field "rpm"/],
    [100, /rateLimit must be \{ requestsPerMinute\?/],
  ])("refuses %j", (rateLimit, message) => {
    expect(() => new Benchmark({ ...base, rateLimit: rateLimit as never })).toThrow(
      ConfigurationError,
    );
    expect(() => new Benchmark({ ...base, rateLimit: rateLimit as never })).toThrow(message);
  });
});
