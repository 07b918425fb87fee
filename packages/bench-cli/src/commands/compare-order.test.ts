import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { BenchmarkResult, type SampleResult } from "@fastrag/bench-core";
import { describe, expect, it } from "vitest";
import { memoryIo, scratchWith } from "../__fixtures__/in-process.js";
import { main } from "../cli.js";

// Issue 34, items 1 and 5 at the command line: the order given, --label, --samples.
function result(name: string, scores: (number | "error")[]): BenchmarkResult {
  const samples: SampleResult[] = scores.map((v, i) => ({
    sampleId: `q${i}`,
    question: `question ${i}?`,
    status: v === "error" ? "errored" : "successful",
    scores: { "recall@5": v === "error" ? null : v },
    answer: null,
    retrievedIds: [],
    retrievedUris: [],
    latencyMs: 1,
    error: v === "error" ? "upstream 500" : null,
  }));
  return new BenchmarkResult({
    name,
    createdAt: new Date("2026-12-05T00:00:00Z"),
    durationS: 1,
    samples,
    higherIsBetter: { "recall@5": true },
  });
}

async function setup() {
  const dir = await scratchWith("compare-order");
  await mkdir(join(dir, "a"));
  await mkdir(join(dir, "b"));
  await result("zeta", [0.2, 0.4, 0.9, 0.9]).save(join(dir, "zeta.json"));
  await result("bm25", ["error", "error", 0.8, 0.8]).save(join(dir, "a", "bm25.json"));
  await result("bm25", [0.1, 0.1, 0.1, 0.1]).save(join(dir, "b", "bm25.json"));
  return memoryIo(dir);
}

describe("compare", () => {
  it("keeps the order given, renames with --label, and compares on common samples", async () => {
    const t = await setup();
    const args = ["compare", "zeta.json", "a/bm25.json", "b/bm25.json", "--test", "none"];
    const code = await main([...args, "--label", "b/bm25.json=bm25-seed2"], t.io);
    expect(code, t.err()).toBe(0);
    // zeta first, as given; the common samples are q2 and q3: zeta 0.9, bm25 0.8, seed2 0.1.
    expect(t.out()).toBe(
      [
        "| run | errored | incomplete | recall@5 |",
        "| --- | ---: | ---: | ---: |",
        "| zeta | 0 | 0 | 0.9000 |",
        "| bm25 | 2 | 0 | 0.8000 |",
        "| bm25-seed2 | 0 | 0 | 0.1000 |",
        "",
        'Each metric is compared on the samples every run scored (recall@5 on 2), so a run is not ranked on only the samples it did not fail; each run\'s own all-samples statistic is available with samples "all" (`--samples all`).',
        "",
      ].join("\n"),
    );
  });

  it("--samples all shows each run's own means", async () => {
    const t = await setup();
    const args = ["compare", "zeta.json", "a/bm25.json", "--test", "none", "--samples", "all"];
    expect(await main(args, t.io), t.err()).toBe(0);
    expect(t.out()).toContain("| zeta | 0 | 0 | 0.6000 |");
    expect(t.out()).toContain("| bm25 | 2 | 0 | 0.8000 |");
  });

  it("--stat median is p50", async () => {
    const t = await setup();
    const args = ["compare", "zeta.json", "--stat", "median"];
    expect(await main(args, t.io), t.err()).toBe(0);
    // zeta's scores 0.2, 0.4, 0.9, 0.9: the median is (0.4 + 0.9) / 2.
    expect(t.out()).toBe("| run | recall@5 p50 |\n| --- | ---: |\n| zeta | 0.6500 |\n");
  });

  it("refuses a bad --label or --samples, naming the flag", async () => {
    const t = await setup();
    expect(await main(["compare", "zeta.json", "--label", "nope.json=x"], t.io)).toBe(2);
    expect(t.err()).toContain('--label "nope.json=x": nope.json is not one of the compared files');
    expect(await main(["compare", "zeta.json", "--label", "zeta.json"], t.io)).toBe(2);
    expect(t.err()).toContain('--label "zeta.json": expected FILE=NAME');
    expect(await main(["compare", "zeta.json", "--samples", "most"], t.io)).toBe(2);
    expect(t.err()).toContain('--samples "most": expected common');
  });
});
