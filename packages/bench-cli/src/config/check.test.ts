import { ConfigurationError } from "@fastrag/bench-core";
import { describe, expect, it } from "vitest";
import { expectRunSettings, expectTarget, targetKindOf } from "./check.js";
import type { BenchConfig } from "./define-config.js";

const retrieve = async () => [];
const query = async () => ({ answer: "" });
const recall = { name: "recall@5", needsAnswer: false };
const exact = { name: "exact_match", needsAnswer: true };

/** The error `fn` throws (the test fails when it throws none). */
function thrown(fn: () => void): ConfigurationError {
  try {
    fn();
  } catch (error) {
    if (ConfigurationError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a ConfigurationError");
}

describe("targetKindOf", () => {
  it("tells targets apart as the runner does", () => {
    expect(targetKindOf({ query })).toBe("engine");
    expect(targetKindOf({ query, retrieve })).toBe("engine");
    expect(targetKindOf({ retrieve })).toBe("retriever");
    expect(targetKindOf({ query: undefined, retrieve })).toBe("retriever");
    expect(targetKindOf({ query: null, retrieve })).toBe("retriever");
    // A query that is there but no function is neither: never taken for a Retriever.
    expect(targetKindOf({ query: "gpt-4o", retrieve })).toBeUndefined();
    expect(targetKindOf({})).toBeUndefined();
    expect(targetKindOf(undefined)).toBeUndefined();
  });
});

describe("expectTarget", () => {
  it("passes an engine with any metrics, and a Retriever with metrics that need no answer", () => {
    expect(() => expectTarget("c.mjs", "rag", { query }, [recall, exact])).not.toThrow();
    expect(() => expectTarget("c.mjs", "bm25", { retrieve }, [recall])).not.toThrow();
  });

  it("refuses what is no target, and a Retriever feeding an answer metric, naming the target", () => {
    const neither = thrown(() =>
      expectTarget("c.mjs", "llm", { query: "gpt-4o", retrieve }, [recall]),
    );
    expect(neither.kind).toBe("unsupported-target");
    expect(neither.option).toBe("targets.llm");
    const needy = thrown(() => expectTarget("c.mjs", "bm25", { retrieve }, [recall, exact]));
    expect(needy.kind).toBe("unsupported-target");
    expect(needy.option).toBe("targets.bm25");
    const key = thrown(() => expectTarget("c.mjs", "bm25", { retrieve, cacheKey: "" }, [recall]));
    expect(key.option).toBe("targets.bm25.cacheKey");
  });
});

describe("expectRunSettings", () => {
  const base = { dataset: [], metrics: [], targets: {} } as unknown as BenchConfig;

  it("names the setting at fault in option", () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ keepChunkText: "yes" }, "keepChunkText"],
      [{ outDir: 3 }, "outDir"],
      [{ timeoutMs: 2_147_483_648 }, "timeoutMs"],
      [{ maxConcurrent: 0 }, "maxConcurrent"],
      [{ cache: 1 }, "cache"],
      [{ retries: { attempts: 0, retryOn: () => true } }, "retries.attempts"],
      [{ retries: { attempts: 2, retryOn: () => true, backoffMs: -1 } }, "retries.backoffMs"],
    ];
    for (const [setting, option] of cases) {
      const error = thrown(() => expectRunSettings("c.mjs", { ...base, ...setting }));
      expect(error.kind, option).toBe("invalid-option");
      expect(error.option, option).toBe(option);
    }
  });

  it("takes the longest timer setTimeout honours, 2^31 - 1 ms", () => {
    expect(() => expectRunSettings("c.mjs", { ...base, timeoutMs: 2 ** 31 - 1 })).not.toThrow();
  });
});
