import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { MemoryCache, type ResponseCache } from "./cache.js";
import { modelCacheKey, targetCacheKey } from "./cache-key.js";
import { type CachedCallOptions, cached } from "./cached.js";
import { ConfigurationError } from "./errors.js";
import type { Usage } from "./types.js";

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

describe("MemoryCache", () => {
  it("gives back JSON round trips, isolated from the caller's objects", () => {
    const cache = new MemoryCache();
    const value = { answer: "Paris", chunks: [{ id: "d1", score: 0.5 }], note: undefined };
    cache.set("k", value);
    value.chunks[0]!.id = "changed";
    expect(cache.get("k")).toEqual({ answer: "Paris", chunks: [{ id: "d1", score: 0.5 }] });
    expect(Object.hasOwn(cache.get("k") as object, "note")).toBe(false);
    expect(cache.get("missing")).toBeUndefined();
    cache.set("k", "replaced");
    expect(cache.get("k")).toBe("replaced");
    expect(cache.size).toBe(1);
  });

  it("refuses values JSON cannot hold, naming the key", () => {
    const cache = new MemoryCache();
    expect(() => cache.set("k1", { n: 1n })).toThrow(
      /cache value for key "k1" is not JSON-serializable/,
    );
    expect(() => cache.set("k2", undefined)).toThrow(/got undefined, expected a JSON value/);
    expect(cache.get("k1")).toBeUndefined();
  });

  it("refuses use after close", () => {
    const cache = new MemoryCache();
    cache.set("k", 1);
    cache.close();
    cache.close();
    expect(() => cache.get("k")).toThrow(/MemoryCache.get: the cache was closed/);
    expect(() => cache.set("k", 1)).toThrow(ConfigurationError);
  });
});

/** A judge that counts its calls, replies from the prompt and reports a usage. */
function countingJudge() {
  const calls: string[] = [];
  const judge = async (prompt: string, options: CachedCallOptions) => {
    calls.push(prompt);
    options.reportUsage?.({ inputTokens: prompt.length, outputTokens: 3, cost: 0.01 });
    return `verdict for ${prompt}`;
  };
  return { judge, calls };
}

const signal = new AbortController().signal;

describe("cached(judge)", () => {
  it("calls the judge once per distinct prompt and answers repeats from the store", async () => {
    const cache = new MemoryCache();
    const { judge, calls } = countingJudge();
    const wrapped = cached(judge, { cache, key: "fake:judge" });
    expect(await wrapped("p1", { signal })).toBe("verdict for p1");
    expect(await wrapped("p1", { signal })).toBe("verdict for p1");
    expect(await wrapped("p2", { signal })).toBe("verdict for p2");
    expect(await wrapped("p1", { signal })).toBe("verdict for p1");
    expect(calls).toEqual(["p1", "p2"]);
    // A second wrapper on the same store (a new process, a rescore) finds the replies.
    const again = countingJudge();
    const rewrapped = cached(again.judge, { cache, key: "fake:judge" });
    expect(await rewrapped("p2", { signal })).toBe("verdict for p2");
    expect(again.calls).toEqual([]);
  });

  it("keeps models apart: another key calls its own model", async () => {
    const cache = new MemoryCache();
    const a = countingJudge();
    const b = countingJudge();
    await cached(a.judge, { cache, key: "openai:gpt-4o" })("p", { signal });
    await cached(b.judge, { cache, key: "openai:gpt-4o-mini" })("p", { signal });
    expect(a.calls).toEqual(["p"]);
    expect(b.calls).toEqual(["p"]);
    expect(cache.size).toBe(2);
  });

  it("never stores an error: the next call tries the model again", async () => {
    const cache = new MemoryCache();
    let calls = 0;
    const flaky = async (prompt: string) => {
      calls++;
      if (calls === 1) throw Object.assign(new Error("rate limited"), { status: 429 });
      return `ok ${prompt}`;
    };
    const wrapped = cached(flaky, { cache, key: "flaky" });
    await expect(wrapped("p", { signal })).rejects.toThrow("rate limited");
    expect(cache.size).toBe(0);
    expect(await wrapped("p", { signal })).toBe("ok p");
    expect(await wrapped("p", { signal })).toBe("ok p");
    expect(calls).toBe(2);
  });

  it("hands back a reply that is not a string without storing it", async () => {
    const cache = new MemoryCache();
    let calls = 0;
    const bad = (() => {
      calls++;
      return 42;
    }) as unknown as (prompt: string, options: CachedCallOptions) => string;
    const wrapped = cached(bad, { cache, key: "bad" });
    expect(await wrapped("p", { signal })).toBe(42);
    expect(await wrapped("p", { signal })).toBe(42);
    expect(calls).toBe(2);
    expect(cache.size).toBe(0);
  });

  it("reports usage on a miss (the model's own report) and nothing on a hit", async () => {
    const cache = new MemoryCache();
    const { judge } = countingJudge();
    const wrapped = cached(judge, { cache, key: "fake" });
    const reported: Usage[] = [];
    const options = { signal, reportUsage: (u: Usage) => reported.push(u) };
    await wrapped("four", options);
    await wrapped("four", options);
    expect(reported).toEqual([{ inputTokens: 4, outputTokens: 3, cost: 0.01 }]);
  });

  it("takes the model key from the function's cacheKey, else refuses", async () => {
    const cache = new MemoryCache();
    const { judge, calls } = countingJudge();
    const keyed = Object.assign(judge, { cacheKey: "openai:gpt-4o-mini" });
    await cached(keyed, { cache })("p", { signal });
    await cached(keyed, { cache, key: "openai:gpt-4o-mini" })("p", { signal });
    expect(calls).toEqual(["p"]);
    expect(cache.get(modelCacheKey("openai:gpt-4o-mini", "p"))).toBe("verdict for p");

    async function myJudge(prompt: string) {
      return prompt;
    }
    expect(() => cached(myJudge, { cache })).toThrow(ConfigurationError);
    expect(() => cached(myJudge, { cache })).toThrow(
      /no model key: pass \{ key: "<provider>:<model>" \}.*function myJudge has none/,
    );
    expect(() => cached(myJudge, { cache, key: "" })).toThrow(
      /option "key" must be a non-empty string/,
    );
    expect(() => cached(myJudge, { cache: {} as ResponseCache, key: "k" })).toThrow(
      /option "cache" must be a ResponseCache/,
    );
  });

  it("works with a store that answers with promises", async () => {
    const inner = new MemoryCache();
    const cache: ResponseCache = {
      get: async (key) => inner.get(key),
      set: async (key, value) => inner.set(key, value),
      close: async () => inner.close(),
    };
    const { judge, calls } = countingJudge();
    const wrapped = cached(judge, { cache, key: "k" });
    await wrapped("p", { signal });
    expect(await wrapped("p", { signal })).toBe("verdict for p");
    expect(calls).toEqual(["p"]);
  });

  it("throws the store's error rather than paying again", async () => {
    const cache: ResponseCache = {
      get: () => {
        throw new ConfigurationError("cache store /x/cache.sqlite is not a database");
      },
      set: () => {},
      close: () => {},
    };
    const { judge, calls } = countingJudge();
    await expect(cached(judge, { cache, key: "k" })("p", { signal })).rejects.toThrow(
      "/x/cache.sqlite is not a database",
    );
    expect(calls).toEqual([]);
  });

  it("refuses an entry of the wrong shape instead of calling again", async () => {
    const cache = new MemoryCache();
    cache.set(modelCacheKey("k", "p"), ["not", "a reply"]);
    const { judge, calls } = countingJudge();
    await expect(cached(judge, { cache, key: "k" })("p", { signal })).rejects.toThrow(
      /entry for model "k" .* is not a judge reply/,
    );
    expect(calls).toEqual([]);
  });

  it("stores a step's reply only when it parses and matches the step's schema", async () => {
    const cache = new MemoryCache();
    const schema = {
      type: "object",
      properties: { verdict: { type: "integer", enum: [0, 1] } },
      required: ["verdict"],
    };
    let reply: unknown = 'Sure! {"verdict": 1}';
    let calls = 0;
    const judge = cached(
      async () => {
        calls++;
        return reply as string;
      },
      { cache, key: "k" },
    );
    await judge("p", { signal, schema });
    await judge("p", { signal, schema });
    expect(calls).toBe(2); // prose around the object: not stored
    reply = { verdict: 2 };
    await judge("p", { signal, schema });
    await judge("p", { signal, schema });
    expect(calls).toBe(4); // out of the schema: not stored
    reply = '```json\n{"verdict": 1}\n```';
    await judge("p", { signal, schema });
    expect(await judge("p", { signal, schema })).toBe(reply);
    expect(calls).toBe(5);
  });

  it("keys attempts of one prompt apart", async () => {
    const cache = new MemoryCache();
    let calls = 0;
    const judge = cached(
      async (_p: string, o: { signal?: AbortSignal; attempt?: number }) =>
        `r${o.attempt ?? 0}-${++calls}`,
      {
        cache,
        key: "k",
      },
    );
    expect(await judge("p", { signal, attempt: 0 })).toBe("r0-1");
    expect(await judge("p", { signal, attempt: 1 })).toBe("r1-2");
    expect(await judge("p", { signal, attempt: 1 })).toBe("r1-2");
    expect(await judge("p", { signal })).toBe("r0-1");
  });
});

describe("cached(embed)", () => {
  it("stores vectors as plain numbers, exactly, and answers repeats without calling", async () => {
    const cache = new MemoryCache();
    const calls: (readonly string[])[] = [];
    const embed = (texts: readonly string[]) => {
      calls.push(texts);
      return texts.map((t) => Float32Array.of(t.length, 0.1, -1 / 3));
    };
    const wrapped = cached(embed, { cache, key: "fake:embed" });
    const first = await wrapped(["ab", "abc"], { signal });
    const second = await wrapped(["ab", "abc"], { signal });
    // float32 values, read back as doubles: 0.1f is 0.10000000149011612.
    const expected = [
      [2, 0.10000000149011612, -0.3333333432674408],
      [3, 0.10000000149011612, -0.3333333432674408],
    ];
    expect(first).toEqual(expected);
    expect(second).toEqual(expected);
    expect(Array.isArray(second[0])).toBe(true);
    expect(calls).toHaveLength(1);
    await wrapped(["abc", "ab"], { signal });
    expect(calls).toHaveLength(2);
  });

  it("does not store vectors holding a non-finite number", async () => {
    const cache = new MemoryCache();
    let calls = 0;
    const embed = () => {
      calls++;
      return [[1, Number.NaN]];
    };
    const wrapped = cached(embed, { cache, key: "nan" });
    expect(await wrapped(["a"], { signal })).toEqual([[1, Number.NaN]]);
    await wrapped(["a"], { signal });
    expect(calls).toBe(2);
    expect(cache.size).toBe(0);
  });
});
