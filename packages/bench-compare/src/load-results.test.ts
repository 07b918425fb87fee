// Comparison.load (load-results.ts): result files by glob, in order, once each.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { ConfigurationError } from "@fastrag/bench-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bm25, dense, hybrid } from "./__fixtures__/comparison-runs.js";
import { Comparison } from "./comparison.js";

describe("files", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "compare-"));
    await dense.save(join(dir, "b-dense.json"));
    await bm25.save(join(dir, "a-bm25.json"));
    await hybrid.save(join(dir, "c[1].json"));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("loads a glob sorted by path, relative or absolute", async () => {
    const abs = await Comparison.load(join(dir, "*.json"));
    expect(abs.results.map((r) => r.name)).toEqual(["bm25", "dense", "hybrid"]);
    const rel = await Comparison.load(`${relative(process.cwd(), dir)}/*-*.json`);
    expect(rel.results.map((r) => r.name)).toEqual(["bm25", "dense"]);
    expect(rel.toMarkdown()).toBe(Comparison.of([bm25, dense]).toMarkdown());
  });

  it("takes an existing path literally, and merges several patterns", async () => {
    const c = await Comparison.load(join(dir, "c[1].json"), join(dir, "a-*.json"));
    // In the order the patterns were given (issue 34): c[1].json first.
    expect(c.results.map((r) => r.name)).toEqual(["hybrid", "bm25"]);
  });

  it("excludes what a ! pattern matches from the other patterns, as globby does", async () => {
    // Globbed on its own, "!…" matched every file of the working directory (sources included).
    const c = await Comparison.load(join(dir, "*.json"), `!${join(dir, "b-*.json")}`);
    expect(c.results.map((r) => r.name)).toEqual(["bm25", "hybrid"]);
    const first = await Comparison.load(`!${join(dir, "c*.json")}`, join(dir, "*.json"));
    expect(first.results.map((r) => r.name)).toEqual(["bm25", "dense"]);
    // A file named literally is still itself beside an exclusion ("[1]" is not a character class).
    const literal = await Comparison.load(join(dir, "c[1].json"), `!${join(dir, "b-*")}`);
    expect(literal.results.map((r) => r.name)).toEqual(["hybrid"]);
  });

  it("refuses only exclusions, and a pattern whose files are all excluded", async () => {
    const not = `!${join(dir, "b-*.json")}`;
    await expect(Comparison.load(not)).rejects.toThrow(
      `Comparison.load: expected a pattern that selects files, found only exclusions ("${not}")`,
    );
    const pattern = join(dir, "b-*.json");
    await expect(Comparison.load(join(dir, "a-*.json"), pattern, not)).rejects.toThrow(
      `pattern "${pattern}" matched no file (working directory ${process.cwd()}, after excluding "${not}")`,
    );
  });

  it("refuses a pattern that matches nothing, naming it", async () => {
    const pattern = join(dir, "*.yaml");
    await expect(Comparison.load(pattern)).rejects.toThrow(ConfigurationError);
    await expect(Comparison.load(join(dir, "*.json"), pattern)).rejects.toThrow(
      `pattern "${pattern}" matched no file`,
    );
    await expect(Comparison.load()).rejects.toThrow(/at least one glob pattern/);
  });

  it("saves the mean table atomically", async () => {
    const c = Comparison.of([bm25, dense]);
    const path = join(dir, "out", "table.md");
    await c.save(path);
    expect(await readFile(path, "utf8")).toBe(c.toMarkdown());
  });
});

describe("load errors", () => {
  it("passes on core's ConfigurationError for a file that is not a result", async () => {
    const dir = await mkdtemp(join(tmpdir(), "compare-bad-"));
    try {
      const { writeFile } = await import("node:fs/promises");
      await writeFile(join(dir, "x.json"), '{"hello": 1}');
      await expect(Comparison.load(join(dir, "*.json"))).rejects.toThrow(
        /x\.json: not a fastrag bench result/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
