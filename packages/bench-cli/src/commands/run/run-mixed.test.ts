import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { answersConfigHead, memoryIo, scratchWith } from "../../__fixtures__/in-process.js";
import { main } from "../../cli.js";

// Issue 34, item 6: a Retriever and a QueryEngine in one config with an answer metric.
const CONFIG = `${answersConfigHead(2, { judged: true })}
import { HitRate } from "@fastrag/bench-metrics/retrieval";
const hit = new HitRate({ k: 1 });
export default {
  dataset, metrics: [exact, hit],
  targets: {
    engine: { query: async (_q, { sample }) => ({ answer: "a" + sample.id.slice(1), chunks: [{ id: "d0" }] }) },
    retriever: { retrieve: async (_q, { sample }) => [{ id: "d" + sample.id.slice(1) }] },
  },
};
`;

async function run(text: string) {
  const dir = await scratchWith("mixed", { "bench.config.mjs": text });
  const { io, out, err } = memoryIo(dir);
  const code = await main(["run", "bench.config.mjs"], io);
  return { dir, code, stdout: out(), stderr: err() };
}

describe("a Retriever beside a QueryEngine", () => {
  it("is scored without the answer metrics: `—`, not incomplete", async () => {
    const r = await run(CONFIG);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      "note: exact_match needs an answer, so retriever (a Retriever) is scored without it",
    );
    const saved = JSON.parse(await readFile(join(r.dir, "results", "retriever.json"), "utf8"));
    expect(saved.status).toEqual({ successful: 2, errored: 0, incomplete: 0 });
    expect(Object.keys(saved.higher_is_better)).toEqual(["hit_rate@1"]);
    // engine: exact_match 1, 1; hit_rate@1 1, 0. retriever: hit_rate@1 1, 1; no exact_match.
    expect(r.stdout).toContain("| a | engine | 1.0000 | 0.5000 |");
    expect(r.stdout).toContain("| b | retriever | — | 1.0000 |");
  });

  it("alone with an answer metric is still refused", async () => {
    const lone = CONFIG.replace(/engine: \{ query[^\n]*\n/, "");
    const r = await run(lone);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('target "retriever" is a Retriever');
  });
});
