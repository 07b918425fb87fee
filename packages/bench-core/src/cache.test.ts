import { describe, expect, it } from "vitest";
import { MemoryCache } from "./cache.js";
import { ConfigurationError } from "./errors.js";

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
