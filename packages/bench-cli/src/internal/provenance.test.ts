import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigurationError } from "@fastrag/bench-core";
import { describe, expect, it } from "vitest";
import { git, hasGit } from "../__fixtures__/git.js";
import { configHash, gitCommit, targetParams } from "./provenance.js";

const A = "0123456789abcdef0123456789abcdef01234567";
const B = "89abcdef0123456789abcdef0123456789abcdef";

async function tree(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), "fastrag-git-"));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(root, path, ".."), { recursive: true });
    await writeFile(join(root, path), text);
  }
  return root;
}

describe("configHash", () => {
  it("is sha256 of the file's bytes", async () => {
    const dir = await tree({ "bench.config.mjs": "export default {};\n" });
    // The known answer: sha256 of those 19 bytes, computed apart from the code under test.
    const expected = createHash("sha256").update("export default {};\n").digest("hex");
    expect(await configHash(join(dir, "bench.config.mjs"))).toBe(`sha256:${expected}`);
  });
});

describe("gitCommit, read from .git without running git", () => {
  it("follows HEAD to a loose branch ref, from a subdirectory of the work tree", async () => {
    const root = await tree({
      ".git/HEAD": "ref: refs/heads/main\n",
      ".git/refs/heads/main": `${A}\n`,
      "bench/sub/bench.config.ts": "",
    });
    expect(await gitCommit(join(root, "bench", "sub"))).toBe(A);
  });

  it("reads packed-refs when the branch has no loose ref, and a detached HEAD as is", async () => {
    const packed = await tree({
      ".git/HEAD": "ref: refs/heads/dev\n",
      ".git/packed-refs": `# pack-refs with: peeled fully-peeled sorted\n${B} refs/heads/main\n${A} refs/heads/dev\n^${B}\n`,
    });
    expect(await gitCommit(packed)).toBe(A);
    const detached = await tree({ ".git/HEAD": `${B}\n` });
    expect(await gitCommit(detached)).toBe(B);
  });

  it("follows a linked worktree's .git file to its gitdir and the common dir's refs", async () => {
    const root = await tree({
      "repo/.git/HEAD": "ref: refs/heads/main\n",
      "repo/.git/refs/heads/main": `${A}\n`,
      "repo/.git/refs/heads/feature": `${B}\n`,
      "repo/.git/worktrees/wt/HEAD": "ref: refs/heads/feature\n",
      "repo/.git/worktrees/wt/commondir": "../..\n",
      "wt/.git": "gitdir: ../repo/.git/worktrees/wt\n",
    });
    expect(await gitCommit(join(root, "wt"))).toBe(B);
  });

  it("is undefined, never an error, outside a repository or on a branch with no commit", async () => {
    const none = await tree({ "bench.config.mjs": "" });
    // A temporary directory may itself lie inside some repository: only claim "none" when it does not.
    const outside = spawnSync("git", ["rev-parse", "--git-dir"], { cwd: none }).status !== 0;
    if (outside) expect(await gitCommit(none)).toBeUndefined();
    const unborn = await tree({ ".git/HEAD": "ref: refs/heads/main\n" });
    expect(await gitCommit(unborn)).toBeUndefined();
    const garbage = await tree({ ".git/HEAD": "not a ref\n" });
    expect(await gitCommit(garbage)).toBeUndefined();
  });

  it.skipIf(!hasGit)(
    "agrees with git rev-parse HEAD on a real repository and worktree",
    async () => {
      const root = await mkdtemp(join(tmpdir(), "fastrag-realgit-"));
      const repo = join(root, "repo");
      await mkdir(repo);
      git(repo, "init", "-q", "-b", "main");
      await writeFile(join(repo, "bench.config.mjs"), "export default {};\n");
      git(repo, "add", ".");
      git(repo, "commit", "-q", "-m", "one");
      git(repo, "commit", "-q", "--allow-empty", "-m", "two");
      expect(await gitCommit(repo)).toBe(git(repo, "rev-parse", "HEAD"));
      // Packed refs, then a linked worktree on another branch.
      git(repo, "pack-refs", "--all");
      expect(await gitCommit(repo)).toBe(git(repo, "rev-parse", "HEAD"));
      git(repo, "branch", "older", "HEAD~1");
      const wt = join(root, "wt");
      git(repo, "worktree", "add", "-q", wt, "older");
      expect(await gitCommit(wt)).toBe(git(wt, "rev-parse", "HEAD"));
      expect(await gitCommit(wt)).not.toBe(await gitCommit(repo));
    },
  );
});

describe("targetParams", () => {
  const check = (target: unknown) => targetParams("bench.config.mjs", "bm25", target);
  const refused = (target: unknown) => {
    try {
      check(target);
    } catch (error) {
      expect(ConfigurationError.isInstance(error)).toBe(true);
      expect((error as ConfigurationError).kind).toBe("invalid-option");
      expect((error as ConfigurationError).option).toBe("targets.bm25.params");
      return (error as Error).message;
    }
    throw new Error("expected a ConfigurationError");
  };

  it("keeps JSON params as they are, and none when the target declares none", () => {
    const params = { k1: 1.2, b: 0.75, model: "bge", tags: ["a", null, true], nested: { x: [1] } };
    expect(check({ retrieve: () => [], params })).toBe(params);
    expect(check({ retrieve: () => [] })).toBeUndefined();
    expect(check({ retrieve: () => [], params: undefined })).toBeUndefined();
  });

  it("refuses what JSON cannot keep, naming where it is", () => {
    expect(refused({ params: [1, 2] })).toMatch(/bm25.*params must be an object .* found an array/);
    expect(refused({ params: "k=5" })).toMatch(/params must be an object/);
    expect(refused({ params: { topK: Number.NaN } })).toMatch(/params\.topK is NaN/);
    expect(refused({ params: { list: [1, () => 2] } })).toMatch(/params\.list\[1\] is a function/);
    expect(refused({ params: { when: new Date(0) } })).toMatch(/params\.when is a Date/);
    expect(refused({ params: { big: 1n } })).toMatch(/params\.big is a bigint/);
    expect(refused({ params: { "top-k": undefined } })).toMatch(/params\["top-k"\] is undefined/);
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(refused({ params: { cycle } })).toMatch(/params\.cycle\.self is a circular reference/);
  });
});
