import { describe, expect, it } from "vitest";
import { BenchmarkResult } from "../benchmark-result.js";
import { ConfigurationError } from "../errors.js";
import type { EvalSample } from "../types.js";

const _samples: EvalSample[] = Array.from({ length: 6 }, (_, i) => ({
  id: `q${i}`,
  question: `question ${i} "quoted" ünïcode`,
  expectedAnswers: [`a${i}`],
  relevantIds: [`d${i}`],
}));

describe("BenchmarkResult.save of what JSON cannot hold", () => {
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
