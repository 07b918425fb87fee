import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ConfigurationError } from "@fastrag/bench-core";
import { describe, expect, it } from "vitest";
import { answersConfigHead, memoryIo, scratchWith } from "../../__fixtures__/in-process.js";
import { main } from "../../cli.js";
import { runCommand } from "./run-command.js";

// Issue 34, item 9 (run): --only, --limit, --retry-errored after a finished run, config discovery,
// a config without a default export, --warmup, and flags named in errors.

interface Globals {
  __r9Calls?: string[];
  __r9Fail?: Set<string>;
  __r9Cold?: Set<string>;
  __r9Times?: number[];
  __r9Usage?: number;
}
const g = globalThis as Globals;

/**
 * Four samples, ExactMatch and targets `a` and `b`, each logging its calls; a call whose
 * `target sample` is in `__r9Fail` throws; each target's first call in the process answers
 * "cold" (wrong) unless it is a warm-up that keeps it out of the samples.
 */
const body = (extra = "") => `${answersConfigHead(4)}
const call = async (who, sample) => {
  globalThis.__r9Calls.push(who + " " + sample.id);
  globalThis.__r9Times?.push(performance.now());
  if (globalThis.__r9Fail.has(who + " " + sample.id)) throw new Error("upstream 500");
  if (!globalThis.__r9Cold.has(who)) { globalThis.__r9Cold.add(who); return { answer: "cold" }; }
  const usage = globalThis.__r9Usage === undefined ? {} : { usage: { totalTokens: globalThis.__r9Usage } };
  return { answer: "a" + sample.id.slice(1), ...usage };
};
export default {
  dataset, metrics: [exact], maxConcurrent: 1, ${extra}
  targets: {
    a: { query: (_q, { sample }) => call("a", sample) },
    b: { query: (_q, { sample }) => call("b", sample) },
  },
};
`;

async function setup(files: Record<string, string> = { "bench.config.mjs": body() }) {
  const dir = await scratchWith("run-select", files);
  g.__r9Calls = [];
  g.__r9Fail = new Set();
  // Warm by default: only the warm-up tests start cold.
  g.__r9Cold = new Set(["a", "b"]);
  g.__r9Times = [];
  g.__r9Usage = undefined;
  return { dir, ...memoryIo(dir) };
}

/** The error `run` throws for these arguments (a flag's error is a UsageError with `option`). */
async function thrown(t: Awaited<ReturnType<typeof setup>>, config: string | undefined, opts = {}) {
  const signal = new AbortController().signal;
  try {
    await runCommand(config, opts, t.io, signal);
  } catch (error) {
    expect(ConfigurationError.isInstance(error)).toBe(true);
    return error as ConfigurationError;
  }
  throw new Error("expected run to throw");
}

const load = async (path: string) => JSON.parse(await readFile(path, "utf8"));

describe("--only", () => {
  it("runs the named targets only, leaving the others untouched", async () => {
    const t = await setup();
    expect(await main(["run", "bench.config.mjs", "--only", "b"], t.io), t.err()).toBe(0);
    expect(g.__r9Calls).toEqual(["b q0", "b q1", "b q2", "b q3"]);
    expect(existsSync(join(t.dir, "results", "b.json"))).toBe(true);
    expect(existsSync(join(t.dir, "results", "a.json"))).toBe(false);
  });

  it("refuses a name the config lacks, listing the config's names, before any call", async () => {
    const t = await setup();
    expect(await main(["run", "bench.config.mjs", "--only", "a", "--only", "c"], t.io)).toBe(2);
    expect(t.err()).toContain(
      '--only "c": the config has no such target; its targets are "a", "b"',
    );
    expect(g.__r9Calls).toEqual([]);
    const error = await thrown(t, "bench.config.mjs", { only: ["c"] });
    expect(error.option).toBe("--only");
    expect(error.kind).toBe("invalid-option");
  });
});

describe("--limit", () => {
  it("runs the first n samples into limit-<n>/, says so, and never replaces or resumes a full run", async () => {
    const t = await setup();
    expect(await main(["run", "bench.config.mjs", "--only", "a"], t.io), t.err()).toBe(0);
    const full = await readFile(join(t.dir, "results", "a.json"), "utf8");
    g.__r9Calls = [];
    expect(await main(["run", "bench.config.mjs", "--limit", "2"], t.io), t.err()).toBe(0);
    expect(g.__r9Calls).toEqual(["a q0", "a q1", "b q0", "b q1"]);
    expect(t.err()).toContain("--limit 2: a smoke test of the first 2 of 4 samples");
    const smoke = await load(join(t.dir, "results", "limit-2", "a.json"));
    expect(smoke.samples.map((s: { sample_id: string }) => s.sample_id)).toEqual(["q0", "q1"]);
    expect(smoke.dataset.size).toBe(2);
    // The full run's result is as it was.
    expect(await readFile(join(t.dir, "results", "a.json"), "utf8")).toBe(full);
    // A full run afterwards runs every sample: nothing of the smoke test is taken for it.
    g.__r9Calls = [];
    expect(await main(["run", "bench.config.mjs", "--only", "b"], t.io), t.err()).toBe(0);
    expect(g.__r9Calls).toEqual(["b q0", "b q1", "b q2", "b q3"]);
  });

  it("cannot be merged with a full run's shard as if it were one", async () => {
    const t = await setup();
    const run = ["run", "bench.config.mjs", "--only", "a"];
    expect(await main([...run, "--limit", "2", "--shard", "1/2"], t.io), t.err()).toBe(0);
    expect(g.__r9Calls).toEqual(["a q0"]);
    expect(await main([...run, "--shard", "2/2"], t.io), t.err()).toBe(0);
    const parts = [
      join(t.dir, "results", "limit-2", "a.shard-1-of-2.json"),
      join(t.dir, "results", "a.shard-2-of-2.json"),
    ];
    expect(await main(["merge", ...parts, "--out", join(t.dir, "m.json")], t.io)).toBe(2);
    expect(t.err()).toContain("ran on different datasets");
    expect(existsSync(join(t.dir, "m.json"))).toBe(false);
  });

  it("refuses a limit that is not a positive whole number, naming the flag", async () => {
    const t = await setup();
    for (const bad of ["0", "-1", "2.5", "many", ""]) {
      const error = await thrown(t, "bench.config.mjs", { limit: bad });
      expect(error.option, bad).toBe("--limit");
    }
    expect(g.__r9Calls).toEqual([]);
  });
});

describe("--retry-errored after a finished run", () => {
  it("calls the target for the errored samples only and writes the merged result", async () => {
    const t = await setup();
    g.__r9Fail = new Set(["a q1", "a q3"]);
    expect(await main(["run", "bench.config.mjs", "--only", "a"], t.io), t.err()).toBe(0);
    const first = await load(join(t.dir, "results", "a.json"));
    expect(first.status).toEqual({ successful: 2, errored: 2, incomplete: 0 });
    g.__r9Fail = new Set();
    g.__r9Calls = [];
    const args = ["run", "bench.config.mjs", "--only", "a", "--retry-errored"];
    expect(await main(args, t.io), t.err()).toBe(0);
    expect(g.__r9Calls).toEqual(["a q1", "a q3"]);
    const merged = await load(join(t.dir, "results", "a.json"));
    expect(merged.status).toEqual({ successful: 4, errored: 0, incomplete: 0 });
    expect(merged.samples.map((s: { sample_id: string }) => s.sample_id)).toEqual([
      "q0",
      "q1",
      "q2",
      "q3",
    ]);
    // The kept samples are the first run's records, not new calls.
    expect(merged.samples[0]).toEqual(first.samples[0]);
    expect(existsSync(join(t.dir, "results", ".journal", "a.jsonl"))).toBe(false);
    // Nothing errored now: a second retry calls nothing and keeps the file.
    g.__r9Calls = [];
    expect(await main(args, t.io), t.err()).toBe(0);
    expect(g.__r9Calls).toEqual([]);
    expect(t.err()).toContain("no sample of");
  });

  it("with trials: calls again only the errored trials, and refuses a result of another trial count", async () => {
    const t = await setup();
    g.__r9Fail = new Set(["a q1"]);
    const run = ["run", "bench.config.mjs", "--only", "a", "--trials", "3"];
    expect(await main(run, t.io), t.err()).toBe(0);
    const first = await load(join(t.dir, "results", "a.json"));
    expect(first.trials).toBe(3);
    expect(first.status).toEqual({ successful: 3, errored: 1, incomplete: 0 });
    g.__r9Fail = new Set();
    g.__r9Calls = [];
    const other = await thrown(t, "bench.config.mjs", {
      only: ["a"],
      trials: "2",
      retryErrored: true,
    });
    expect(other.option).toBe("--retry-errored");
    expect(other.message).toContain("it ran 3 trials per sample, the config 2");
    expect(g.__r9Calls).toEqual([]);
    expect(await main([...run, "--retry-errored"], t.io), t.err()).toBe(0);
    // q1's three trials errored; every other trial is kept from the first run.
    expect(g.__r9Calls).toEqual(["a q1", "a q1", "a q1"]);
    const merged = await load(join(t.dir, "results", "a.json"));
    expect(merged.trials).toBe(3);
    expect(merged.status).toEqual({ successful: 4, errored: 0, incomplete: 0 });
    expect(merged.samples[0]).toEqual(first.samples[0]);
    expect(merged.samples[1].trials.map((x: { status: string }) => x.status)).toEqual([
      "successful",
      "successful",
      "successful",
    ]);
    expect(merged.samples[1].scores).toEqual({ exact_match: 1 });
  });

  it("refuses a result file that is not this config's run of the target", async () => {
    const t = await setup();
    expect(await main(["run", "bench.config.mjs", "--only", "a"], t.io), t.err()).toBe(0);
    // b's file holding a's run.
    await writeFile(
      join(t.dir, "results", "b.json"),
      await readFile(join(t.dir, "results", "a.json")),
    );
    g.__r9Calls = [];
    const error = await thrown(t, "bench.config.mjs", { only: ["b"], retryErrored: true });
    expect(error.option).toBe("--retry-errored");
    expect(error.message).toContain('its run is named "a"');
    expect(g.__r9Calls).toEqual([]);
  });
});

describe("run without a config argument", () => {
  it("finds bench.config.* in the current directory, .ts first", async () => {
    const t = await setup({ "bench.config.mjs": body() });
    expect(await main(["run", "--only", "a"], t.io), t.err()).toBe(0);
    expect(g.__r9Calls).toHaveLength(4);
    const both = await setup({
      "bench.config.mjs": "throw new Error('the .mjs must not be loaded');",
      "bench.config.ts": body(),
    });
    expect(await main(["run", "--only", "a"], both.io), both.err()).toBe(0);
    expect(both.err()).toContain("note: running bench.config.ts (also found: bench.config.mjs)");
  });

  it("says where it looked and what for when there is none", async () => {
    const t = await setup({});
    expect(await main(["run"], t.io)).toBe(2);
    expect(t.err()).toContain(
      "has none of bench.config.ts, bench.config.mts, bench.config.mjs, bench.config.js",
    );
    expect(t.err()).toContain(t.dir);
  });
});

describe("a config module without a default export", () => {
  it("names the file and the exports it found", async () => {
    const t = await setup({
      "bench.config.mjs": "export const targets = {}; export function makeConfig() {}",
    });
    expect(await main(["run", "bench.config.mjs"], t.io)).toBe(2);
    expect(t.err()).toContain(join(t.dir, "bench.config.mjs"));
    expect(t.err()).toContain('has no default export (it exports only "targets", "makeConfig")');
    const empty = await setup({ "bench.config.mjs": "const x = 1;" });
    expect(await main(["run", "bench.config.mjs"], empty.io)).toBe(2);
    expect(empty.err()).toContain("has no default export (it exports nothing)");
  });
});

describe("--warmup", () => {
  it("is off by default: the first call of each target is a sample's", async () => {
    const t = await setup();
    g.__r9Cold = new Set();
    expect(await main(["run", "bench.config.mjs"], t.io), t.err()).toBe(0);
    expect(g.__r9Calls).toHaveLength(8);
    // q0 got the cold answer: that is what a warm-up keeps out of the samples.
    const a = await load(join(t.dir, "results", "a.json"));
    expect(a.samples[0].answer).toBe("cold");
  });

  it("calls each target once before its samples, recording and counting nothing of it", async () => {
    for (const [args, config] of [
      [["--warmup"], body()],
      [[], body("warmup: true,")],
    ] as const) {
      const t = await setup({ "bench.config.mjs": config });
      g.__r9Cold = new Set();
      expect(await main(["run", "bench.config.mjs", ...args], t.io), t.err()).toBe(0);
      // One extra call per target, of its first sample, before the timed ones.
      expect(g.__r9Calls).toEqual([
        "a q0",
        "a q0",
        "a q1",
        "a q2",
        "a q3",
        "b q0",
        "b q0",
        "b q1",
        "b q2",
        "b q3",
      ]);
      for (const name of ["a", "b"]) {
        const r = await load(join(t.dir, "results", `${name}.json`));
        expect(r.samples).toHaveLength(4);
        expect(r.status).toEqual({ successful: 4, errored: 0, incomplete: 0 });
        expect(r.samples.every((s: { answer: string }) => s.answer !== "cold")).toBe(true);
      }
    }
  });

  it("counts against the rate limit: the samples start as late as after one limited call", async () => {
    // 240 requests a minute: the limiter starts with 4 to spend at once, so without the wait the
    // samples would start right after the warm-up: 5 calls in a moment.
    const t = await setup();
    g.__r9Cold = new Set();
    const args = ["run", "bench.config.mjs", "--only", "a", "--warmup", "--rpm", "240"];
    expect(await main(args, t.io), t.err()).toBe(0);
    expect(g.__r9Calls?.slice(0, 2)).toEqual(["a q0", "a q0"]);
    const [warm, first] = g.__r9Times as number[];
    // A request's share of a minute: 250 ms (less a timer's rounding).
    expect((first as number) - (warm as number)).toBeGreaterThanOrEqual(245);
    expect(t.err()).toContain(
      "a: the warm-up call counts against rateLimit; waiting 0.3 s before the samples",
    );
    // Its tokens, when they cost more: 10,000 of 1,200,000 a minute is 500 ms.
    const tokens = await setup();
    g.__r9Usage = 10_000;
    const targs = ["run", "bench.config.mjs", "--only", "a", "--warmup", "--tpm", "1200000"];
    expect(await main(targs, tokens.io), tokens.err()).toBe(0);
    const [warm2, first2] = g.__r9Times as number[];
    expect((first2 as number) - (warm2 as number)).toBeGreaterThanOrEqual(495);
    expect(tokens.err()).toContain("waiting 0.5 s before the samples");
    // Without a rate limit, no wait and no note.
    const free = await setup();
    expect(await main(["run", "bench.config.mjs", "--only", "a", "--warmup"], free.io)).toBe(0);
    expect(free.err()).not.toContain("counts against rateLimit");
  });

  it("is skipped when the cache answers, and refuses a warmup key that is not a boolean", async () => {
    const t = await setup();
    expect(await main(["run", "bench.config.mjs", "--cache"], t.io), t.err()).toBe(0);
    g.__r9Calls = [];
    expect(await main(["run", "bench.config.mjs", "--cache", "--warmup"], t.io), t.err()).toBe(0);
    expect(g.__r9Calls).toEqual([]);
    expect(t.err()).toContain("a: no warm-up call (the cache answers)");
    const bad = await setup({ "bench.config.mjs": body('warmup: "yes",') });
    expect(await main(["run", "bench.config.mjs"], bad.io)).toBe(2);
    expect(bad.err()).toContain('warmup must be true or false, found the string "yes"');
  });
});

describe("errors about flags name the flag", () => {
  it("--rpm, --tpm, --shard and --out-dir", async () => {
    const t = await setup();
    expect((await thrown(t, "bench.config.mjs", { rpm: "0" })).option).toBe("--rpm");
    expect((await thrown(t, "bench.config.mjs", { tpm: "lots" })).option).toBe("--tpm");
    expect((await thrown(t, "bench.config.mjs", { shard: "3/2" })).option).toBe("--shard");
    await writeFile(join(t.dir, "a-file"), "");
    const out = await thrown(t, "bench.config.mjs", { outDir: "a-file" });
    expect(out.option).toBe("--out-dir");
    expect(out.message).toMatch(/^--out-dir /);
    expect(g.__r9Calls).toEqual([]);
  });

  it("a config value in the config's terms, not the library's", async () => {
    const t = await setup({
      "bench.config.mjs": body().replace("a: { query:", "a: { cacheKey: 5, query:"),
    });
    const error = await thrown(t, "bench.config.mjs", { cache: true });
    expect(error.option).toBe("targets.a.cacheKey");
    expect(error.message).toContain(
      'target "a": cacheKey must be a non-empty string that names the pipeline\'s version in the response cache, found the number 5',
    );
    expect(error.message).not.toContain("Benchmark.run");
    expect(g.__r9Calls).toEqual([]);
  });
});
