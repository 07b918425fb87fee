import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeResult } from "./__fixtures__/make-result.js";
import { Comparison } from "./comparison.js";

// Issue 34, item 5: compare keeps the order given, and two runs of one name can be renamed.
async function saved(dir: string, file: string, name: string, scores: number[]) {
  const path = join(dir, file);
  await makeResult({ name, scores: { m: scores } }).save(path);
  return path;
}

describe("Comparison.load order", () => {
  it("keeps the order of the patterns, each glob in path order, a repeated file in its first place", async () => {
    const dir = await mkdtemp(join(tmpdir(), "fastrag-order-"));
    const c = await saved(dir, "c.json", "charlie", [0.3]);
    const a = await saved(dir, "a.json", "alpha", [0.1]);
    await saved(dir, "b.json", "bravo", [0.2]);
    const given = await Comparison.load(c, a);
    expect(given.results.map((r) => r.name)).toEqual(["charlie", "alpha"]);
    expect(given.label("charlie")).toBe("a");
    const glob = await Comparison.load(join(dir, "*.json"));
    expect(glob.results.map((r) => r.name)).toEqual(["alpha", "bravo", "charlie"]);
    const mixed = await Comparison.load(c, join(dir, "*.json"));
    expect(mixed.results.map((r) => r.name)).toEqual(["charlie", "alpha", "bravo"]);
  });
});

describe("Comparison.renamed", () => {
  it("tells two runs of one name apart, keeping order, letters and scores", () => {
    const one = makeResult({ name: "bm25", scores: { m: [0.1, 0.3] } });
    const two = makeResult({ name: "bm25", scores: { m: [0.5, 0.7] } });
    const c = Comparison.of([one, two]);
    expect(() => c.label("bm25")).toThrow(/ambiguous/);
    const r = c.renamed({ 1: "bm25 seed 2" });
    expect(r.results.map((x) => x.name)).toEqual(["bm25", "bm25 seed 2"]);
    expect(r.label("bm25 seed 2")).toBe("b");
    expect(r.toMarkdown()).toBe(
      "| run | m |\n| --- | ---: |\n| bm25 | 0.2000 |\n| bm25 seed 2 | 0.6000 |\n",
    );
    expect(() => c.renamed({ 2: "x" })).toThrow(/out of range/);
    expect(() => c.renamed({ 0: "" })).toThrow(/expected a non-empty name/);
  });
});
