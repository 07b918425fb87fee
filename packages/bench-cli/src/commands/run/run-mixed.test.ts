import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../cli.js";

// Issue 34, item 6: a Retriever and a QueryEngine in one config with an answer metric.
const CONFIG = `
const dataset = Array.from({ length: 2 }, (_, i) => ({
  id: "q" + i, question: "q " + i, expectedAnswers: ["a" + i], relevantIds: ["d" + i],
}));
const exact = {
  name: "exact", higherIsBetter: true, needsRelevantIds: false, needsAnswer: true,
  score: ({ sample, answer }) => (answer === sample.expectedAnswers[0] ? 1 : 0),
};
const hit = {
  name: "hit", higherIsBetter: true, needsRelevantIds: true, needsAnswer: false,
  score: ({ sample, retrieved }) => (retrieved[0]?.id === sample.relevantIds[0] ? 1 : 0),
};
export default {
  dataset, metrics: [exact, hit],
  targets: {
    engine: { query: async (_q, { sample }) => ({ answer: "a" + sample.id.slice(1), chunks: [{ id: "d0" }] }) },
    retriever: { retrieve: async (_q, { sample }) => [{ id: "d" + sample.id.slice(1) }] },
  },
};
`;

async function run(text: string) {
  const dir = await mkdtemp(join(tmpdir(), "fastrag-mixed-"));
  await writeFile(join(dir, "bench.config.mjs"), text);
  let stdout = "";
  let stderr = "";
  const io = {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    env: { NO_COLOR: "1" },
    cwd: dir,
  };
  const code = await main(["run", "bench.config.mjs"], io);
  return { dir, code, stdout, stderr };
}

describe("a Retriever beside a QueryEngine", () => {
  it("is scored without the answer metrics: `—`, not incomplete", async () => {
    const r = await run(CONFIG);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      "note: exact needs an answer, so retriever (a Retriever) is scored without it",
    );
    const saved = JSON.parse(await readFile(join(r.dir, "results", "retriever.json"), "utf8"));
    expect(saved.status).toEqual({ successful: 2, errored: 0, incomplete: 0 });
    expect(Object.keys(saved.higher_is_better)).toEqual(["hit"]);
    // engine: exact 1, 1; hit 1, 0. retriever: hit 1, 1; no exact.
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
