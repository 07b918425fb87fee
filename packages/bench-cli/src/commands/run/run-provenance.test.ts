import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { appendFile, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { git, hasGit } from "../../__fixtures__/git.js";
import { answersConfigHead, memoryIo, scratchWith } from "../../__fixtures__/in-process.js";
import { main } from "../../cli.js";

// Issue 34, item 4: a result records where it came from, and a resume under a changed config is
// refused unless asked for.

interface Globals {
  __r34Calls?: string[];
  __r34Stop?: AbortController;
}
const g = globalThis as Globals;

/** Four samples, ExactMatch, and targets that log each call in `globalThis`. */
const CONFIG = `${answersConfigHead(4)}
const call = async (who, sample) => {
  globalThis.__r34Calls.push(who + " " + sample.id);
  if (who === "tuned" && sample.id === "q1") globalThis.__r34Stop?.abort();
  return { answer: "a" + sample.id.slice(1) };
};
export default {
  dataset, metrics: [exact], maxConcurrent: 1,
  targets: {
    plain: { query: (_q, { sample }) => call("plain", sample) },
    tuned: { params: { topK: 5, model: "m-1", weights: [0.5, 0.5] }, query: (_q, { sample }) => call("tuned", sample) },
  },
};
`;

async function setup(text = CONFIG) {
  const dir = await scratchWith("provenance", { "bench.config.mjs": text });
  g.__r34Calls = [];
  g.__r34Stop = undefined;
  return { dir, ...memoryIo(dir) };
}

const sha256 = async (path: string) =>
  `sha256:${createHash("sha256")
    .update(await readFile(path))
    .digest("hex")}`;

async function resultFile(dir: string, name: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(join(dir, "results", `${name}.json`), "utf8"));
}

describe("provenance in run's results", () => {
  it("records the config file's sha256 and each target's params (none declared: none recorded)", async () => {
    const t = await setup();
    expect(await main(["run", "bench.config.mjs"], t.io), t.err()).toBe(0);
    const hash = await sha256(join(t.dir, "bench.config.mjs"));
    const tuned = await resultFile(t.dir, "tuned");
    expect(tuned.config_hash).toBe(hash);
    expect(tuned.params).toEqual({ topK: 5, model: "m-1", weights: [0.5, 0.5] });
    const plain = await resultFile(t.dir, "plain");
    expect(plain.config_hash).toBe(hash);
    expect("params" in plain).toBe(false);
    // A temporary directory outside any repository: no commit, and no error.
    const inRepo = spawnSync("git", ["rev-parse", "--git-dir"], { cwd: t.dir }).status === 0;
    if (!inRepo) expect("git_commit" in plain).toBe(false);
  });

  it.skipIf(!hasGit)("records the commit of the git work tree holding the config", async () => {
    const t = await setup();
    git(t.dir, "init", "-q", "-b", "main");
    git(t.dir, "add", "bench.config.mjs");
    git(t.dir, "commit", "-q", "-m", "config");
    expect(await main(["run", "bench.config.mjs"], t.io), t.err()).toBe(0);
    expect((await resultFile(t.dir, "plain")).git_commit).toBe(git(t.dir, "rev-parse", "HEAD"));
  });

  it("refuses params that are not JSON before any target is called (exit 2)", async () => {
    const t = await setup(CONFIG.replace("topK: 5", "topK: 5, when: new Date(0)"));
    expect(await main(["run", "bench.config.mjs"], t.io)).toBe(2);
    expect(t.err()).toContain('target "tuned": params.when is a Date');
    expect(g.__r34Calls).toEqual([]);
  });
});

describe("resuming under a changed config", () => {
  /** Runs until `tuned` has finished q0 and q1 (the stop comes during q1), leaving its journal. */
  async function interrupted() {
    const t = await setup();
    g.__r34Stop = new AbortController();
    const code = await main(
      ["run", "bench.config.mjs"],
      t.io,
      new AbortController().signal,
      g.__r34Stop.signal,
    );
    expect(code, t.err()).toBe(130);
    g.__r34Stop = undefined;
    expect(g.__r34Calls?.filter((c) => c.startsWith("tuned"))).toEqual(["tuned q0", "tuned q1"]);
    g.__r34Calls = [];
    t.clear();
    return t;
  }

  it("resumes as before when the config is unchanged", async () => {
    const t = await interrupted();
    expect(await main(["run", "bench.config.mjs"], t.io), t.err()).toBe(0);
    // plain finished before the stop and is kept; tuned resumes with q2 and q3 only.
    expect(g.__r34Calls).toEqual(["tuned q2", "tuned q3"]);
  });

  it("refuses (exit 2), naming both hashes and the ways out, and calls nothing", async () => {
    const t = await interrupted();
    const before = await sha256(join(t.dir, "bench.config.mjs"));
    await appendFile(join(t.dir, "bench.config.mjs"), "// a new prompt\n");
    const now = await sha256(join(t.dir, "bench.config.mjs"));
    expect(await main(["run", "bench.config.mjs"], t.io)).toBe(2);
    const line = t.err().split("\n")[0] as string;
    expect(line).toContain("another version of bench.config.mjs");
    expect(line).toContain(before.slice(0, "sha256:".length + 12));
    expect(line).toContain(now.slice(0, "sha256:".length + 12));
    expect(line).toContain("--fresh");
    expect(line).toContain("--force");
    expect(g.__r34Calls).toEqual([]);
    // Nothing was lost: the journal is still there for either way out.
    expect(existsSync(join(t.dir, "results", ".journal", "tuned.jsonl"))).toBe(true);
  });

  it("--force resumes with a warning and records the new hash; --fresh starts over", async () => {
    const t = await interrupted();
    await appendFile(join(t.dir, "bench.config.mjs"), "// a new prompt\n");
    const now = await sha256(join(t.dir, "bench.config.mjs"));
    expect(await main(["run", "bench.config.mjs", "--force"], t.io), t.err()).toBe(0);
    expect(t.err()).toMatch(/warning: tuned: resuming the journal .* as --force asks/);
    expect(g.__r34Calls).toEqual(["tuned q2", "tuned q3"]);
    expect((await resultFile(t.dir, "tuned")).config_hash).toBe(now);

    const u = await interrupted();
    await appendFile(join(u.dir, "bench.config.mjs"), "// a new prompt\n");
    expect(await main(["run", "bench.config.mjs", "--fresh"], u.io), u.err()).toBe(0);
    expect(g.__r34Calls?.sort()).toEqual(
      [
        "plain q0",
        "plain q1",
        "plain q2",
        "plain q3",
        "tuned q0",
        "tuned q1",
        "tuned q2",
        "tuned q3",
      ].sort(),
    );
  });

  it("refuses --fresh with --force together", async () => {
    const t = await setup();
    expect(await main(["run", "bench.config.mjs", "--fresh", "--force"], t.io)).toBe(2);
    expect(t.err()).toContain("--fresh and --force contradict each other");
  });
});
