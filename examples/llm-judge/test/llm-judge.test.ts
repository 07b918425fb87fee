/**
 * Runs the example as a user would, offline: `fastrag-bench run bench.config.ts` with no
 * OPENAI_API_KEY, so the RAG pipeline and the judge talk to the fixture server over HTTP through
 * the real AI SDK client, 429s included. The expected scores follow from the fixture by hand (see
 * the comments), not from the code under test.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { keywordSearch } from "../src/rag.js";

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(
  dirname(createRequire(import.meta.url).resolve("@fastrag/bench-cli/package.json")),
  "dist/bin.js",
);

interface SampleRecord {
  sample_id: string;
  status: string;
  scores: Record<string, number | null>;
  retrieved_ids: string[];
}

describe("examples/llm-judge, offline", () => {
  it("retrieves as the README says (keyword overlap, ties in corpus order)", () => {
    expect(keywordSearch("Where is the Great Barrier Reef?", 3).map((c) => c.id)).toEqual([
      "reef-1", // great, barrier, reef: 3 (tie with reef-2, earlier in the corpus)
      "reef-2",
      "kili-1", // 0, first in corpus order after the reef
    ]);
    expect(keywordSearch("How high is Mount Kilimanjaro?", 2).map((c) => c.id)).toEqual([
      "kili-1", // mount, kilimanjaro
      "kili-2", // kilimanjaro
    ]);
  });

  it("runs the config through the CLI and scores from the fixture's verdicts", () => {
    const out = mkdtempSync(join(tmpdir(), "llm-judge-"));
    const env = { ...process.env };
    delete env.OPENAI_API_KEY;
    const run = spawnSync(process.execPath, [bin, "run", "bench.config.ts", "--out-dir", out], {
      cwd: join(here, ".."),
      env,
      encoding: "utf8",
      timeout: 120_000,
    });
    expect(run.stderr).toContain(
      "no OPENAI_API_KEY, so the model is the offline fixture at http://127.0.0.1:",
    );
    expect(run.status, run.stderr).toBe(0);
    const refused = /refused (\d+) with HTTP 429/.exec(run.stderr);
    expect(Number(refused?.[1])).toBeGreaterThan(0); // every 7th request: the SDK retried them
    expect(run.stdout).toMatch(/\| a \| top-3 \| 0\.8750 \| 0\.8750 \|/);
    expect(run.stdout).toMatch(/\| b \| top-1 \| 0\.6667 \| 0\.8750 \|/);

    const read = (name: string) =>
      JSON.parse(readFileSync(join(out, `${name}.json`), "utf8")) as { samples: SampleRecord[] };
    const byId = (name: string) =>
      Object.fromEntries(read(name).samples.map((s) => [s.sample_id, s]));
    const top3 = byId("top-3");
    const top1 = byId("top-1");
    // Faithfulness = claims whose evidence is in the retrieved passages / claims.
    // top-3 sees every passage an answer draws on; Baikal's "in Canada" has no evidence anywhere.
    expect(
      Object.fromEntries(Object.entries(top3).map(([id, s]) => [id, s.scores.faithfulness])),
    ).toEqual({
      reef: 1,
      kilimanjaro: 1,
      danube: 1,
      baikal: 0.5,
    });
    // top-1 keeps one passage: the reef's polyps (reef-2) and Kilimanjaro's volcano (kili-2) are gone.
    expect(top1.reef?.scores.faithfulness).toBeCloseTo(2 / 3, 12);
    expect(top1.kilimanjaro?.scores.faithfulness).toBe(0.5);
    expect(top1.danube?.scores.faithfulness).toBe(1);
    expect(top1.baikal?.scores.faithfulness).toBe(0.5);
    for (const s of [...Object.values(top3), ...Object.values(top1)]) {
      expect(s.status).toBe("successful");
      // The fixture's grades: 1, except Baikal's 0.5 (right depth, wrong country).
      expect(s.scores.answer_correctness).toBe(s.sample_id === "baikal" ? 0.5 : 1);
      const tokens = s.scores.tokens as number;
      const cost = s.scores.cost as number;
      expect(tokens).toBeGreaterThan(0);
      // gpt-4o-mini's prices: between all-input (0.15/M) and all-output (0.6/M).
      expect(cost).toBeGreaterThanOrEqual((tokens * 0.15) / 1e6);
      expect(cost).toBeLessThanOrEqual((tokens * 0.6) / 1e6);
    }
    expect(top1.reef?.retrieved_ids).toEqual(["reef-1"]);
  }, 150_000);
});
