import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli, fixtures, scratchDir } from "../__fixtures__/cli-process.js";

// End-to-end: these tests start the built binary as a child process, as a user or CI would.

describe("rescore", () => {
  const config = join(fixtures, "rescore.config.mjs");
  const scoresOf = async (file: string) =>
    JSON.parse(await readFile(file, "utf8")).samples.map(
      (s: { scores: Record<string, number | null> }) => s.scores,
    );

  it("scores saved outputs with the config's metrics, calling no target, as a fresh run does", async () => {
    const root = await scratchDir();
    const calls = join(root, "calls.txt");
    const env = { FASTRAG_TEST_CALLS: calls };
    const first = cli(["run", config, "--out-dir", join(root, "a")], env);
    expect(first.code, first.stderr).toBe(0);
    expect(readFileSync(calls, "utf8").trim().split("\n")).toHaveLength(20);

    const r = cli(["rescore", config, join(root, "a", "engine.json")], {
      ...env,
      FASTRAG_TEST_METRICS: "second",
    });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(calls, "utf8").trim().split("\n")).toHaveLength(20);
    const written = join(root, "a", "engine.json");
    expect(r.stderr).toContain(`→ ${written}`);
    expect(r.stderr).toMatch(/added: ndcg@3 [\d.]+, f1 [\d.]+, tokens 19\.5/);
    expect(r.stderr).toMatch(/removed: exact_match/);
    expect(r.stderr).toMatch(/unchanged: recall@2/);

    const fresh = cli(["run", config, "--out-dir", join(root, "b")], {
      ...env,
      FASTRAG_TEST_METRICS: "second",
    });
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(readFileSync(calls, "utf8").trim().split("\n")).toHaveLength(40);
    expect(await scoresOf(written)).toEqual(await scoresOf(join(root, "b", "engine.json")));

    // --out-dir leaves the input as it was.
    const before = await readFile(written, "utf8");
    const elsewhere = cli(["rescore", config, written, "--out-dir", join(root, "c")]);
    expect(elsewhere.code, elsewhere.stderr).toBe(0);
    expect(await readFile(written, "utf8")).toBe(before);
    expect((await scoresOf(join(root, "c", "engine.json")))[0]).toEqual({
      "recall@2": 0.5,
      exact_match: 1,
    });
  });

  it("refuses a metric that reads chunk text the run did not keep, naming the option; keeps it with --keep-chunk-text", async () => {
    const root = await scratchDir();
    expect(cli(["run", config, "--out-dir", join(root, "plain")]).code).toBe(0);
    const file = join(root, "plain", "engine.json");
    const before = await readFile(file, "utf8");
    const refused = cli(["rescore", config, file], { FASTRAG_TEST_METRICS: "faith" });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/faithfulness.*retrieved\[\]\.text.*--keep-chunk-text/);
    expect(await readFile(file, "utf8")).toBe(before);

    const kept = cli(["run", config, "--out-dir", join(root, "kept"), "--keep-chunk-text"]);
    expect(kept.code, kept.stderr).toBe(0);
    const keptFile = join(root, "kept", "engine.json");
    expect(JSON.parse(await readFile(keptFile, "utf8")).samples[0].retrieved[0].text).toBe(
      "doc-2: question 0",
    );
    const ok = cli(["rescore", config, keptFile], { FASTRAG_TEST_METRICS: "faith" });
    expect(ok.code, ok.stderr).toBe(0);
    const faith = cli(["run", config, "--out-dir", join(root, "fresh")], {
      FASTRAG_TEST_METRICS: "faith",
    });
    expect(faith.code, faith.stderr).toBe(0);
    expect(await scoresOf(keptFile)).toEqual(await scoresOf(join(root, "fresh", "engine.json")));
  });
});
