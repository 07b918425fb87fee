import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { modelCacheKey, targetCacheKey } from "./cache-key.js";
import { ConfigurationError } from "./errors.js";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

describe("targetCacheKey", () => {
  const sample = {
    id: "q1",
    question: "Who wrote Hamlet?",
    metadata: { lang: "en", source: { name: "squad", split: [1, "dev"] } },
  };

  it("hashes cacheKey, id, question, sorted metadata and trial as one JSON array", () => {
    // Written out by hand: this text is the key's format, and changing it invalidates every store.
    const text =
      '["rag-v3","q1","Who wrote Hamlet?",{"lang":"en","source":{"name":"squad","split":[1,"dev"]}},0]';
    expect(targetCacheKey({ cacheKey: "rag-v3", runName: "baseline", sample })).toBe(
      `target:${sha256(text)}`,
    );
    expect(
      targetCacheKey({ runName: "baseline", sample: { question: "Who wrote Hamlet?" }, trial: 2 }),
    ).toBe(`target:${sha256('["baseline",null,"Who wrote Hamlet?",null,2]')}`);
  });

  it("does not depend on the key order of metadata, at any depth", () => {
    const reordered = {
      ...sample,
      metadata: { source: { split: [1, "dev"], name: "squad" }, lang: "en" },
    };
    expect(targetCacheKey({ runName: "r", sample: reordered })).toBe(
      targetCacheKey({ runName: "r", sample }),
    );
    // ...but array order is content.
    const swapped = {
      ...sample,
      metadata: { ...sample.metadata, source: { name: "squad", split: ["dev", 1] } },
    };
    expect(targetCacheKey({ runName: "r", sample: swapped })).not.toBe(
      targetCacheKey({ runName: "r", sample }),
    );
  });

  it("uses the run name only when there is no cacheKey", () => {
    const a = targetCacheKey({ cacheKey: "v1", runName: "monday", sample });
    const b = targetCacheKey({ cacheKey: "v1", runName: "tuesday", sample });
    const c = targetCacheKey({ runName: "monday", sample });
    const d = targetCacheKey({ runName: "tuesday", sample });
    expect(a).toBe(b);
    expect(c).not.toBe(d);
    expect(c).not.toBe(a);
    expect(targetCacheKey({ cacheKey: "v2", runName: "monday", sample })).not.toBe(a);
  });

  it("changes with the question, the id, the metadata and the trial; not with undefined fields", () => {
    const base = targetCacheKey({ runName: "r", sample });
    expect(targetCacheKey({ runName: "r", sample, trial: 0 })).toBe(base);
    expect(targetCacheKey({ runName: "r", sample, trial: 1 })).not.toBe(base);
    expect(
      targetCacheKey({ runName: "r", sample: { ...sample, question: "Who wrote Hamlet ?" } }),
    ).not.toBe(base);
    expect(targetCacheKey({ runName: "r", sample: { ...sample, id: "q2" } })).not.toBe(base);
    expect(
      targetCacheKey({ runName: "r", sample: { ...sample, metadata: { lang: "de" } } }),
    ).not.toBe(base);
    expect(
      targetCacheKey({
        runName: "r",
        sample: { ...sample, metadata: { ...sample.metadata, note: undefined } },
      }),
    ).toBe(base);
  });

  it("ignores what a sample is scored against, which does not change the pipeline's output", () => {
    const scored = { ...sample, expectedAnswers: ["Shakespeare"], relevantIds: ["d1"] };
    const rescored = { ...sample, expectedAnswers: ["William Shakespeare"], relevantIds: ["d2"] };
    expect(targetCacheKey({ runName: "r", sample: scored })).toBe(
      targetCacheKey({ runName: "r", sample: rescored }),
    );
  });

  it("refuses metadata that JSON would blur, naming the sample and the path", () => {
    const withMap = { id: "q7", question: "?", metadata: { tags: new Map([["a", 1]]) } };
    expect(() => targetCacheKey({ runName: "r", sample: withMap })).toThrow(ConfigurationError);
    expect(() => targetCacheKey({ runName: "r", sample: withMap })).toThrow(
      /sample "q7" metadata\.tags: a Map cannot be part of a cache key/,
    );
    const withBigint = { id: "q8", question: "?", metadata: { n: [1n] } };
    expect(() => targetCacheKey({ runName: "r", sample: withBigint })).toThrow(
      /sample "q8" metadata\.n\[0\]: a bigint/,
    );
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() =>
      targetCacheKey({ runName: "r", sample: { question: "?", metadata: cyclic } }),
    ).toThrow(/a cycle/);
    // A shared (not cyclic) object is fine.
    const shared = { x: 1 };
    expect(
      targetCacheKey({
        runName: "r",
        sample: { question: "?", metadata: { a: shared, b: shared } },
      }),
    ).toMatch(/^target:[0-9a-f]{64}$/);
  });

  it("refuses bad names and trials", () => {
    expect(() => targetCacheKey({ runName: "", sample })).toThrow(
      /run name: expected a non-empty string/,
    );
    expect(() => targetCacheKey({ cacheKey: "", runName: "r", sample })).toThrow(
      /cacheKey: expected a non-empty string, got the string ""/,
    );
    expect(() => targetCacheKey({ runName: "r", sample, trial: -1 })).toThrow(
      /trial: expected a non-negative integer, got the number -1/,
    );
    expect(() => targetCacheKey({ runName: "r", sample, trial: 0.5 })).toThrow(ConfigurationError);
  });
});

describe("modelCacheKey", () => {
  it("hashes the model key and the input as a JSON array", () => {
    expect(modelCacheKey("openai:gpt-4o-mini", "Grade this")).toBe(
      `model:${sha256('["openai:gpt-4o-mini","Grade this"]')}`,
    );
    expect(modelCacheKey("m", ["Grade this"])).toBe(`model:${sha256('["m",["Grade this"]]')}`);
    expect(modelCacheKey("m", ["a"])).not.toBe(modelCacheKey("m", "a"));
  });
});
