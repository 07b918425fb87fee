import { describe, expect, it } from "vitest";
import { MemoryCache, type ResponseCache } from "./cache.js";
import { modelCacheKey } from "./cache-key.js";
import { type CachedCallOptions, cached } from "./cached.js";
import { ConfigurationError } from "./errors.js";
import type { Usage } from "./types.js";

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
