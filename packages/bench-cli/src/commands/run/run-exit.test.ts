import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { answersConfigHead, memoryIo, scratchWith } from "../../__fixtures__/in-process.js";
import { main } from "../../cli.js";

// Issue 34, items 2 and 3: a run that failed must not exit 0; config errors name where they
// happened; the first Ctrl-C lets paid calls in flight finish.

/** Four samples, ExactMatch and the given targets' bodies; `extra` first, on line 1. */
function config(targets: string, extra = ""): string {
  return `${extra}
${answersConfigHead(4)}
export default { dataset, metrics: [exact], maxConcurrent: 1, targets: { ${targets} } };
`;
}

async function setup(text: string) {
  const dir = await scratchWith("run-exit", { "bench.config.mjs": text });
  return { dir, ...memoryIo(dir) };
}

const ALWAYS_FAILS = `down: { query: async () => { throw new Error("connection refused"); } }`;
const HALF_FAILS = `half: { query: async (_q, { sample }) => {
  if (sample.id === "q0" || sample.id === "q1") throw new Error("upstream 500");
  return { answer: "a" + sample.id.slice(1) };
} }`;
const FINE = `fine: { query: async (_q, { sample }) => ({ answer: "a" + sample.id.slice(1) }) }`;

describe("run's exit code", () => {
  it("is 1 when a target errored on every sample, naming it; 0 when --max-errored allows it", async () => {
    const t = await setup(config(`${FINE}, ${ALWAYS_FAILS}`));
    expect(await main(["run", "bench.config.mjs"], t.io), t.err()).toBe(1);
    expect(t.err()).toContain("error: down: every sample errored (4 of 4)");
    expect(t.err()).not.toContain("error: fine");
    // Both results are saved all the same: nothing is lost on failure.
    expect(existsSync(join(t.dir, "results", "down.json"))).toBe(true);
    expect(existsSync(join(t.dir, "results", "fine.json"))).toBe(true);
    const allowed = await setup(config(ALWAYS_FAILS));
    const args = ["run", "bench.config.mjs", "--max-errored", "100%"];
    expect(await main(args, allowed.io), allowed.err()).toBe(0);
  });

  it("applies --max-errored as a count or a share of the samples", async () => {
    for (const [limit, code] of [
      ["1", 1],
      ["2", 0],
      ["25%", 1],
      ["50%", 0],
    ] as const) {
      const t = await setup(config(HALF_FAILS));
      expect(await main(["run", "bench.config.mjs", "--max-errored", limit], t.io), limit).toBe(
        code,
      );
      if (code === 1)
        expect(t.err()).toMatch(/half: 2 of 4 samples errored, more than --max-errored allows/);
    }
    // Without the flag, some errors (not all) still exit 0, as before.
    const t = await setup(config(HALF_FAILS));
    expect(await main(["run", "bench.config.mjs"], t.io)).toBe(0);
    const bad = await setup(config(HALF_FAILS));
    expect(await main(["run", "bench.config.mjs", "--max-errored", "lots"], bad.io)).toBe(2);
    expect(bad.err()).toContain('--max-errored "lots": expected a count of samples');
  });

  it("--verbose lists every sample error", async () => {
    const t = await setup(config(HALF_FAILS));
    expect(await main(["run", "bench.config.mjs", "--verbose"], t.io)).toBe(0);
    expect(t.err()).toContain("errored q0: upstream 500");
    expect(t.err()).toContain("errored q1: upstream 500");
  });
});

describe("config load errors", () => {
  it("name the file and line where the config's code threw", async () => {
    const t = await setup(
      config(FINE, 'if (1 + 1 === 2)\n  throw new Error("no OPENAI_API_KEY");'),
    );
    expect(await main(["run", "bench.config.mjs"], t.io)).toBe(2);
    // The throw is on line 2 of the file; `new Error` starts at column 9.
    expect(t.err()).toContain(
      `bench.config.mjs: could not load the config: ${join(t.dir, "bench.config.mjs")}:2:9: no OPENAI_API_KEY`,
    );
    expect(t.err()).not.toContain("    at ");
  });

  it("with --verbose, print the stack and its causes", async () => {
    const t = await setup(config(FINE, 'throw new Error("outer", { cause: new Error("inner") });'));
    expect(await main(["run", "bench.config.mjs", "--verbose"], t.io)).toBe(2);
    expect(t.err()).toMatch(/ConfigurationError: .*could not load the config/);
    expect(t.err()).toMatch(/caused by: Error: outer\n\s+at /);
    expect(t.err()).toContain("caused by: Error: inner");
  });
});

describe("a graceful stop (the first Ctrl-C)", () => {
  it("lets calls in flight finish without aborting their signal, keeps them, and resumes the rest", async () => {
    const stop = new AbortController();
    const signal = new AbortController();
    (globalThis as { __fastragStop?: AbortController }).__fastragStop = stop;
    const target = `slow: { query: async (_q, { sample, signal }) => {
      globalThis.__calls = (globalThis.__calls ?? 0) + 1;
      if (sample.id === "q1") globalThis.__fastragStop.abort();
      await new Promise((r) => setTimeout(r, 30));
      if (signal.aborted) globalThis.__abortedCalls = (globalThis.__abortedCalls ?? 0) + 1;
      return { answer: "a" + sample.id.slice(1) };
    } }`;
    const t = await setup(config(target));
    const g = globalThis as { __calls?: number; __abortedCalls?: number };
    g.__calls = 0;
    g.__abortedCalls = 0;
    const code = await main(["run", "bench.config.mjs"], t.io, signal.signal, stop.signal);
    expect(code).toBe(130);
    // maxConcurrent 1: q0 finished, q1 was in flight at the stop and finished; q2, q3 never started.
    expect(g.__calls).toBe(2);
    expect(g.__abortedCalls).toBe(0);
    const journal = await readFile(join(t.dir, "results", ".journal", "slow.jsonl"), "utf8");
    expect(journal.trim().split("\n")).toHaveLength(3); // header + q0 + q1
    (globalThis as { __fastragStop?: AbortController }).__fastragStop = new AbortController();
    g.__calls = 0;
    expect(await main(["run", "bench.config.mjs"], t.io), t.err()).toBe(0);
    expect(g.__calls).toBe(2); // only q2 and q3 ran on resume
  });
});
