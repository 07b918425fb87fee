import { ConfigurationError } from "@fastrag/bench-core";
import { fakeEngine, fakeRetriever } from "@fastrag/bench-core/testing";
import { ExactMatch } from "@fastrag/bench-metrics/generation";
import { Recall } from "@fastrag/bench-metrics/retrieval";
import { describe, expect, it } from "vitest";
import { expectRetries, expectRunSettings, expectTarget, targetKindOf } from "./check.js";
import type { BenchConfig } from "./define-config.js";

const recall = new Recall({ k: 5 });
const exact = new ExactMatch();

/** The error `fn` throws, or `undefined` when it throws none (anything else fails the test). */
function thrown(fn: () => void): ConfigurationError | undefined {
  try {
    fn();
  } catch (error) {
    if (ConfigurationError.isInstance(error)) return error;
    throw error;
  }
  return undefined;
}

describe("targetKindOf", () => {
  it("tells targets apart as the runner does", () => {
    const { query } = fakeEngine();
    const { retrieve } = fakeRetriever();
    expect(targetKindOf(fakeEngine())).toBe("engine");
    expect(targetKindOf({ query, retrieve })).toBe("engine");
    expect(targetKindOf(fakeRetriever())).toBe("retriever");
    expect(targetKindOf({ query: undefined, retrieve })).toBe("retriever");
    expect(targetKindOf({ query: null, retrieve })).toBe("retriever");
    // A query that is there but no function is neither: never taken for a Retriever.
    expect(targetKindOf({ query: "gpt-4o", retrieve })).toBeUndefined();
    expect(targetKindOf({})).toBeUndefined();
    expect(targetKindOf(undefined)).toBeUndefined();
  });
});

describe("expectTarget", () => {
  it("refuses a Retriever only where a metric needs an answer, naming the target and the metric", () => {
    // The same Retriever: fine with retrieval metrics, refused beside ExactMatch; an engine is
    // fine with both.
    expect(thrown(() => expectTarget("c.mjs", "bm25", fakeRetriever(), [recall]))).toBeUndefined();
    expect(
      thrown(() => expectTarget("c.mjs", "rag", fakeEngine(), [recall, exact])),
    ).toBeUndefined();
    const needy = thrown(() => expectTarget("c.mjs", "bm25", fakeRetriever(), [recall, exact]));
    expect(needy?.message).toBe(
      'c.mjs: target "bm25" is a Retriever (it has retrieve() but no query()), and exact_match needs an answer. Make it a QueryEngine or drop that metric',
    );
    expect(needy).toMatchObject({
      kind: "unsupported-target",
      option: "targets.bm25",
      path: "c.mjs",
    });
  });

  it("refuses what is no target, an empty name and a bad cacheKey, each in the config's terms", () => {
    const { retrieve } = fakeRetriever();
    const neither = thrown(() =>
      expectTarget("c.mjs", "llm", { query: "gpt-4o", retrieve }, [recall]),
    );
    expect(neither?.message).toMatch(
      /^c\.mjs: target "llm" is neither a QueryEngine .* nor a Retriever/,
    );
    expect(neither).toMatchObject({ kind: "unsupported-target", option: "targets.llm" });
    const unnamed = thrown(() => expectTarget("c.mjs", " ", fakeEngine(), [recall]));
    expect(unnamed?.message).toBe(
      'c.mjs: a target has an empty name (" "); its result would have no name to compare by',
    );
    expect(unnamed).toMatchObject({ kind: "invalid-option", option: "targets", path: "c.mjs" });
    const key = thrown(() =>
      expectTarget("c.mjs", "bm25", { ...fakeRetriever(), cacheKey: "" }, [recall]),
    );
    expect(key?.message).toBe(
      `c.mjs: target "bm25": cacheKey must be a non-empty string that names the pipeline's version in the response cache, found the string ""`,
    );
    expect(key).toMatchObject({ kind: "invalid-option", option: "targets.bm25.cacheKey" });
  });
});

describe("expectRunSettings", () => {
  const base = { dataset: [], metrics: [], targets: {} } as unknown as BenchConfig;

  it("names the config, the setting at fault (in option) and what it found", () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [
        { keepChunkText: "yes" },
        "keepChunkText",
        /keepChunkText must be true or false, found the string "yes"/,
      ],
      [{ outDir: 3 }, "outDir", /outDir must be a path \(a string\), found number/],
      [
        { timeoutMs: 0 },
        "timeoutMs",
        /timeoutMs must be a positive number of milliseconds \(at most 2147483647\), found the number 0/,
      ],
      [
        { maxConcurrent: 0 },
        "maxConcurrent",
        /maxConcurrent must be a positive integer, found the number 0/,
      ],
      [{ cache: 1 }, "cache", /cache must be true or false, found the number 1/],
      [
        { retries: 3 },
        "retries",
        /retries must be \{ attempts, backoffMs\?, maxBackoffMs\?, retryOn \}, found the number 3/,
      ],
      [
        { retries: { attempts: 0, retryOn: () => true } },
        "retries.attempts",
        /retries\.attempts must be a positive integer \(attempts per sample, the first included\), found the number 0/,
      ],
      [
        { retries: { attempts: 2 } },
        "retries.retryOn",
        /retries\.retryOn must be a function \(error\) => boolean that marks transient errors, found none/,
      ],
      [
        { retries: { attempts: 2, retryOn: () => true, backoffMs: -1 } },
        "retries.backoffMs",
        /retries\.backoffMs must be a non-negative number of milliseconds, found the number -1/,
      ],
    ];
    for (const [setting, option, says] of cases) {
      const error = thrown(() => expectRunSettings("c.mjs", { ...base, ...setting }));
      expect(error?.message, option).toMatch(new RegExp(`^c\\.mjs: ${says.source}`));
      expect(error, option).toMatchObject({ kind: "invalid-option", option, path: "c.mjs" });
    }
  });

  it("takes the longest timer setTimeout honours, 2^31 - 1 ms, and refuses one more", () => {
    expect(
      thrown(() => expectRunSettings("c.mjs", { ...base, timeoutMs: 2 ** 31 - 1 })),
    ).toBeUndefined();
    const over = thrown(() => expectRunSettings("c.mjs", { ...base, timeoutMs: 2 ** 31 }));
    expect(over?.message).toBe(
      "c.mjs: timeoutMs must be a positive number of milliseconds (at most 2147483647), found the number 2147483648",
    );
    expect(over?.option).toBe("timeoutMs");
  });
});

describe("expectRetries", () => {
  it("names an unknown field of retries, in field too", () => {
    const error = thrown(() =>
      expectRetries("c.mjs", { attempts: 2, retryOn: () => true, tries: 3 }),
    );
    expect(error?.message).toBe(
      'c.mjs: retries has an unknown field "tries"; expected { attempts, backoffMs?, maxBackoffMs?, retryOn }',
    );
    expect(error).toMatchObject({ kind: "invalid-option", option: "retries", field: "tries" });
  });
});
