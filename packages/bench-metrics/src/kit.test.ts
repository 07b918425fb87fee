import { ConfigurationError, MetricUnavailableError } from "@fastrag/bench-core";
import { metricInput } from "@fastrag/bench-core/testing";
import { describe, expect, it } from "vitest";
import {
  expectCutoff,
  expectMatchLevel,
  expectMetricName,
  expectOptions,
  expectTimeoutMs,
  idsAtLevel,
  rankMetric,
} from "./kit.js";

// Success@k: 1 when a relevant id is in the first k ranks.
const success = (k: number, level?: "chunk" | "document") =>
  rankMetric({
    metric: "SuccessAt",
    name: `success@${k}`,
    k,
    ...(level ? { level } : {}),
    kernel: ({ relevant, length, k }) => {
      for (let i = 0; i < Math.min(length, k); i++) if (relevant[i] === 1) return 1;
      return 0;
    },
  });

describe("rankMetric", () => {
  it("scores the de-duplicated ranking with the kernel", () => {
    const m = success(2);
    expect(m).toMatchObject({
      name: "success@2",
      higherIsBetter: true,
      needsRelevantIds: true,
      needsAnswer: false,
      specificationVersion: "v1",
    });
    // "x" twice counts once, so "a" moves up to rank 2.
    expect(m.score(metricInput({ relevantIds: ["a"], retrieved: ["x", "x", "a"] }))).toBe(1);
    expect(m.score(metricInput({ relevantIds: ["a"], retrieved: ["x", "y", "a"] }))).toBe(0);
    expect(m.score(metricInput({ relevantIds: [], retrieved: ["a"] }))).toBeNull();
  });

  it("hands the kernel R and the cutoff (Infinity without one)", () => {
    const seen: [number, number][] = [];
    const m = rankMetric({
      metric: "Probe",
      name: "probe",
      kernel: ({ relevantCount, k }) => {
        seen.push([relevantCount, k]);
        return 0;
      },
    });
    m.score(metricInput({ relevantIds: ["a", "b", "a"], retrieved: ["a"] }));
    expect(seen).toEqual([[2, Number.POSITIVE_INFINITY]]);
  });

  it("matches documents at document level", () => {
    const input = metricInput({
      relevantIds: ["D2"],
      retrieved: [
        { id: "c1", documentId: "D1" },
        { id: "c2", documentId: "D1" },
        { id: "c3", documentId: "D2" },
      ],
    });
    expect(success(2, "document").score(input)).toBe(1);
    expect(success(2).score(input)).toBe(0);
  });

  it("refuses a bad cutoff, level or kernel when built", () => {
    expect(() => success(0)).toThrow(
      "SuccessAt: option k must be a positive integer, found the number 0",
    );
    expect(() => rankMetric({ metric: "M", name: "m", kernel: 3 as never })).toThrow(
      "M: option kernel must be a function, found the number 3",
    );
    expect(() => success(1, "page" as never)).toThrow(ConfigurationError);
  });
});

describe("option checks", () => {
  it("return the value when it is as documented", () => {
    expect(expectOptions("M", undefined)).toEqual({});
    expect(expectOptions("M", { k: 1 }, { known: ["k"] })).toEqual({ k: 1 });
    expect(expectCutoff("M", 5)).toBe(5);
    expect(expectMatchLevel("M", undefined)).toBe("chunk");
    expect(expectMetricName("M", undefined, "m@5")).toBe("m@5");
    expect(expectTimeoutMs("M", 2_147_483_647)).toBe(2_147_483_647);
  });

  it("throw a ConfigurationError naming metric, option and what was found", () => {
    expect(() => expectOptions("M", { levl: "document" }, { known: ["k", "level"] })).toThrow(
      'M: unknown option "levl"; expected k, level',
    );
    expect(() => expectCutoff("M", 1.5)).toThrow(
      "M: option k must be a positive integer, found the number 1.5",
    );
    expect(() => expectMatchLevel("M", "page")).toThrow(
      'M: option level must be "chunk" or "document", found the string "page"',
    );
    expect(() => expectMetricName("M", "", "m")).toThrow(
      'M: option name must be a non-empty string, found the string ""',
    );
    expect(() => expectTimeoutMs("M", 2_147_483_648)).toThrow(ConfigurationError);
  });
});

describe("idsAtLevel", () => {
  it("gives the ranking's ids once each, in order, at either level", () => {
    const input = metricInput({
      retrieved: [
        { id: "c1", documentId: "D1" },
        { id: "c2", documentId: "D2" },
        { id: "c1", documentId: "D1" },
        { id: "c3", documentId: "D1" },
      ],
    });
    expect(idsAtLevel(input, "chunk", "M")).toEqual(["c1", "c2", "c3"]);
    expect(idsAtLevel(input, "document", "M")).toEqual(["D1", "D2"]);
  });

  it("is unavailable at document level for a chunk without a documentId", () => {
    const input = metricInput({ retrieved: ["c1"] });
    expect(() => idsAtLevel(input, "document", "M")).toThrow(MetricUnavailableError);
  });
});
