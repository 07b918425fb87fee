import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { bin, cli, fixtures, scratchDir } from "../../__fixtures__/cli-process.js";

// End-to-end: these tests start the built binary as a child process, as a user or CI would.

let dir: string;
beforeAll(async () => {
  dir = await scratchDir();
});

describe("run --cache", () => {
  /** A dataset file of 12 samples, `edit` changing the question of q4. */
  async function writeDataset(path: string, edit = false): Promise<void> {
    const samples = Array.from({ length: 12 }, (_, i) => ({
      id: `q${i}`,
      question: edit && i === 4 ? "question four, edited" : `question ${i}`,
      expected_answers: [`answer q${i}`],
      relevant_ids: [],
    }));
    await writeFile(path, JSON.stringify({ samples }));
  }
  const calls = async (file: string) =>
    (await readFile(file, "utf8").catch(() => "")).split("\n").filter((l) => l !== "");

  it("calls the target 0 times the second time with the same scores; once after one edit; --refresh calls all", async () => {
    const out = join(dir, "cache-run");
    const dataset = join(dir, "cache-dataset.json");
    const log = join(dir, "cache-calls.txt");
    await writeDataset(dataset);
    const env = { DATASET: dataset, CALLS: log };
    const config = join(fixtures, "cache.config.mjs");

    const first = cli(["run", config, "--out-dir", out, "--cache"], env);
    expect(first.code, first.stderr).toBe(0);
    expect(await calls(log)).toHaveLength(12);
    expect(first.stderr).toMatch(/errored 0, 0 from the cache\)/);
    expect(existsSync(join(out, ".cache", "cache.sqlite"))).toBe(true);
    const firstResult = JSON.parse(await readFile(join(out, "echo.json"), "utf8"));

    const second = cli(["run", config, "--out-dir", out, "--cache"], env);
    expect(second.code, second.stderr).toBe(0);
    expect(await calls(log)).toHaveLength(12);
    expect(second.stderr).toMatch(/12 from the cache\)/);
    const secondResult = JSON.parse(await readFile(join(out, "echo.json"), "utf8"));
    const scores = (r: { samples: { scores: unknown }[] }) => r.samples.map((s) => s.scores);
    expect(scores(secondResult)).toEqual(scores(firstResult));
    // exact_match as the engine answers: every third sample right.
    expect(
      secondResult.samples.map((s: { scores: { exact_match: number } }) => s.scores.exact_match),
    ).toEqual(Array.from({ length: 12 }, (_, i) => (i % 3 === 0 ? 1 : 0)));

    await writeDataset(dataset, true);
    const edited = cli(["run", config, "--out-dir", out], { ...env, CONFIG_CACHE: "1" });
    expect(edited.code, edited.stderr).toBe(0);
    expect((await calls(log)).slice(12)).toEqual(["q4"]);
    expect(edited.stderr).toMatch(/11 from the cache\)/);

    const refreshed = cli(["run", config, "--out-dir", out, "--refresh"], env);
    expect(refreshed.code, refreshed.stderr).toBe(0);
    expect(await calls(log)).toHaveLength(25);
    expect(refreshed.stderr).toMatch(/0 from the cache\)/);

    // Without the cache, nothing is said about it and every sample is called.
    const plain = cli(["run", config, "--out-dir", out], env);
    expect(plain.code, plain.stderr).toBe(0);
    expect(await calls(log)).toHaveLength(37);
    expect(plain.stderr).not.toMatch(/from the cache/);
  });

  it("two shards running at once share the store; the whole run then calls nothing", async () => {
    const out = join(dir, "cache-shards");
    const dataset = join(dir, "cache-dataset-3.json");
    const log = join(dir, "cache-calls-3.txt");
    await writeDataset(dataset);
    const env = { ...process.env, NO_COLOR: "1", DATASET: dataset, CALLS: log };
    const config = join(fixtures, "cache.config.mjs");
    const shard = (s: string) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(
          process.execPath,
          [bin, "run", config, "--out-dir", out, "--cache", "--shard", s],
          { env },
        );
        let stderr = "";
        child.stderr.on("data", (d: Buffer) => {
          stderr += d.toString();
        });
        child.on("exit", (code) => resolve({ code, stderr }));
      });
    const [a, b] = await Promise.all([shard("1/2"), shard("2/2")]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    expect((await calls(log)).sort()).toEqual(Array.from({ length: 12 }, (_, i) => `q${i}`).sort());
    const whole = cli(["run", config, "--out-dir", out, "--cache"], {
      DATASET: dataset,
      CALLS: log,
    });
    expect(whole.code, whole.stderr).toBe(0);
    expect(await calls(log)).toHaveLength(12);
    expect(whole.stderr).toMatch(/12 from the cache\)/);
  });

  it("a damaged store is an error naming the file, before any call", async () => {
    const out = join(dir, "cache-damaged");
    const dataset = join(dir, "cache-dataset-2.json");
    const log = join(dir, "cache-calls-2.txt");
    await writeDataset(dataset);
    await mkdir(join(out, ".cache"), { recursive: true });
    await writeFile(join(out, ".cache", "cache.sqlite"), "not a database\n".repeat(300));
    const r = cli(["run", join(fixtures, "cache.config.mjs"), "--out-dir", out, "--cache"], {
      DATASET: dataset,
      CALLS: log,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `${join(out, ".cache", "cache.sqlite")}: the file is not a SQLite database`,
    );
    expect(await calls(log)).toEqual([]);
  });

  it("refuses a cache key that is not a boolean", async () => {
    const config = join(dir, "cache-bad.config.mjs");
    await writeFile(
      config,
      `export default { dataset: [{ question: "q", expectedAnswers: ["a"], relevantIds: [] }], metrics: [{ name: "m", higherIsBetter: true, needsRelevantIds: false, needsAnswer: false, score: () => 1 }], targets: { t: { retrieve: async () => [] } }, cache: "yes" };\n`,
    );
    const r = cli(["run", config]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cache must be true or false/);
  });
});
