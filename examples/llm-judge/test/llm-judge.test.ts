/**
 * Runs the example as a user would, offline: `fastrag-bench run bench.config.ts` with no
 * OPENAI_API_KEY, so the RAG pipeline, the judge (aiJudge, structured output) and the embedder
 * (aiEmbed) talk to the fixture server over HTTP through the real AI SDK client, 429s included.
 * The server logs every request it receives (LLM_JUDGE_FIXTURE_LOG), so the test counts them.
 *
 * The expected scores follow from the fixture by hand (see the comments), not from the code
 * under test. What the fixture says (data/fixture-replies.json, src/fixture-server.ts): a
 * statement is supported by a text exactly when its evidence phrase appears in it (any case).
 *
 * Retrieval (keyword overlap, ties in corpus order) and the evidence phrases in each passage:
 *
 * | question    | top-3 (top-1 is the first)     | phrases in the passages                          |
 * | ----------- | ------------------------------ | ------------------------------------------------ |
 * | reef        | reef-1, reef-2, kili-1         | reef-1: "off the coast of Queensland", "largest  |
 * |             |                                | coral reef system"; reef-2: "coral polyps"       |
 * | kilimanjaro | kili-1, kili-2, reef-1         | kili-1: "5,895 metres"; kili-2: "dormant volcano"|
 * | danube      | danube-1, kili-1, danube-2     | danube-1: "the Black Sea"                        |
 * | baikal      | baikal-2, baikal-1, reef-1     | baikal-1: "1,642 metres"; baikal-2: none         |
 *
 * Baikal's "northern Canada" is in no passage. Each reference has one statement, whose phrase is
 * the same as the answer's first statement's ("off the coast of Queensland", "5,895 metres",
 * "the Black Sea", "1,642 metres"), so the useful passages are reef-1, kili-1, danube-1 and
 * baikal-1.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { STEP_PROMPTS, STEP_SCHEMAS, type StepName } from "@fastrag/bench-metrics/generation";
import { describe, expect, it } from "vitest";
import type { LoggedRequest } from "../src/fixture-server.js";
import { keywordSearch } from "../src/rag.js";

const here = dirname(fileURLToPath(import.meta.url));
const example = join(here, "..");
const bin = join(
  dirname(createRequire(import.meta.url).resolve("@fastrag/bench-cli/package.json")),
  "dist/bin.js",
);

interface JudgmentStep {
  step: string;
  attempt: number;
  about?: string;
  key: string;
  reply: Record<string, unknown>;
}
interface SampleRecord {
  sample_id: string;
  status: string;
  cached?: boolean;
  scores: Record<string, number | null>;
  retrieved: { id: string; text?: string }[];
  judgments?: Record<string, JudgmentStep[]>;
}

const JUDGE_METRICS = [
  "faithfulness",
  "context_precision",
  "context_recall",
  "answer_relevancy",
  "answer_correctness",
  "factual_correctness",
  "noise_sensitivity",
];

/** Runs the CLI offline with the fixture's request log at `log`. */
function cli(args: string[], log: string) {
  const env: NodeJS.ProcessEnv = { ...process.env, LLM_JUDGE_FIXTURE_LOG: log };
  delete env.OPENAI_API_KEY;
  return spawnSync(process.execPath, [bin, ...args], {
    cwd: example,
    env,
    encoding: "utf8",
    timeout: 120_000,
  });
}

function requests(log: string): LoggedRequest[] {
  return readFileSync(log, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as LoggedRequest);
}

/** Requests answered with 200, by kind, and judge steps by their response_format name. */
function answered(log: string) {
  const ok = requests(log).filter((r) => r.status === 200);
  const steps: Record<string, number> = {};
  for (const r of ok) {
    if (r.kind !== "judge") continue;
    const name = (r.response_format as { json_schema: { name: string } }).json_schema.name;
    steps[name] = (steps[name] ?? 0) + 1;
  }
  const count = (kind: string) => ok.filter((r) => r.kind === kind).length;
  return { generation: count("generation"), embeddings: count("embeddings"), steps };
}

const read = (dir: string, name: string) =>
  JSON.parse(readFileSync(join(dir, `${name}.json`), "utf8")) as { samples: SampleRecord[] };
const byId = (dir: string, name: string): Record<string, SampleRecord> =>
  Object.fromEntries(read(dir, name).samples.map((s) => [s.sample_id, s]));
const scoresOf = (samples: Record<string, SampleRecord>, metric: string) =>
  Object.fromEntries(Object.entries(samples).map(([id, s]) => [id, s.scores[metric]]));
const judgmentsOf = (samples: Record<string, SampleRecord>) =>
  Object.fromEntries(Object.entries(samples).map(([id, s]) => [id, s.judgments]));

describe("examples/llm-judge, offline", () => {
  it("retrieves as the table above says (keyword overlap, ties in corpus order)", () => {
    const ids = (q: string) => keywordSearch(q, 3).map((c) => c.id);
    // great, barrier, reef: 3 each (reef-1 first in the corpus); kili-1 the first of the 0s.
    expect(ids("Where is the Great Barrier Reef?")).toEqual(["reef-1", "reef-2", "kili-1"]);
    // mount, kilimanjaro: 2 ("highest" is not "high"); kilimanjaro: 1.
    expect(ids("How high is Mount Kilimanjaro?")).toEqual(["kili-1", "kili-2", "reef-1"]);
    // danube, sea: 2 ("flows" is not "flow"); kili-1 (sea level) and danube-2: 1 each.
    expect(ids("Into which sea does the Danube flow?")).toEqual(["danube-1", "kili-1", "danube-2"]);
    // baikal-2: lake, baikal, deep ("so deep"): 3; baikal-1: lake, baikal ("deepest"): 2.
    expect(ids("How deep is Lake Baikal?")).toEqual(["baikal-2", "baikal-1", "reef-1"]);
  });

  it("runs, judges from the fixture, caches every judge step, and rescores with no call", () => {
    const out = mkdtempSync(join(tmpdir(), "llm-judge-"));
    const log1 = join(out, "requests-1.jsonl");
    const run = cli(["run", "bench.config.ts", "--out-dir", join(out, "results")], log1);
    expect(run.stderr).toContain(
      "no OPENAI_API_KEY, so the model is the offline fixture at http://127.0.0.1:",
    );
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toMatch(
      /✓ top-3: 4 samples .*\(successful 4, incomplete 0, errored 0, 0 from the cache\)/,
    );
    expect(run.stderr).toMatch(
      /✓ top-1: 4 samples .*\(successful 4, incomplete 0, errored 0, 0 from the cache\)/,
    );
    // The means of the per-sample values below, to 4 decimals.
    expect(run.stdout).toContain(
      "| a | top-3 | 0.8750 | 0.8750 | 1.0000 | 0.7533 | 0.6699 | 0.7083 | 0.0833 |",
    );
    expect(run.stdout).toContain(
      "| b | top-1 | 0.5417 | 0.7500 | 0.7500 | 0.7533 | 0.6699 | 0.7083 | 0.0833 |",
    );

    const results = join(out, "results");
    const top3 = byId(results, "top-3");
    const top1 = byId(results, "top-1");
    for (const s of [...Object.values(top3), ...Object.values(top1)]) {
      expect(s.status).toBe("successful");
      expect(Object.keys(s.judgments ?? {})).toEqual(JUDGE_METRICS);
      expect(s.retrieved.every((c) => typeof c.text === "string")).toBe(true); // keepChunkText
    }

    // faithfulness = the answer's statements whose phrase is in the retrieved passages / all.
    // top-3 sees every passage an answer draws on; Baikal's "northern Canada" is nowhere.
    expect(scoresOf(top3, "faithfulness")).toEqual({
      reef: 1,
      kilimanjaro: 1,
      danube: 1,
      baikal: 0.5,
    });
    // top-1 keeps one passage: the reef's polyps (reef-2) and Kilimanjaro's volcano (kili-2) are
    // gone, and Baikal's one passage (baikal-2) does not give the depth: 0 of 2.
    expect(top1.reef?.scores.faithfulness).toBeCloseTo(2 / 3, 12);
    expect(scoresOf(top1, "faithfulness")).toMatchObject({
      kilimanjaro: 0.5,
      danube: 1,
      baikal: 0,
    });

    // context_precision: a verdict per passage, 1 for the useful one, then average precision.
    // Every useful passage is ranked first except Baikal's in top-3: [0, 1, 0] → (1/2) / 1.
    expect(scoresOf(top3, "context_precision")).toEqual({
      reef: 1,
      kilimanjaro: 1,
      danube: 1,
      baikal: 0.5,
    });
    // top-1's Baikal passage is baikal-2: [0] → 0.
    expect(scoresOf(top1, "context_precision")).toEqual({
      reef: 1,
      kilimanjaro: 1,
      danube: 1,
      baikal: 0,
    });

    // context_recall: the reference's one statement attributed to the passages or not.
    expect(scoresOf(top3, "context_recall")).toEqual({
      reef: 1,
      kilimanjaro: 1,
      danube: 1,
      baikal: 1,
    });
    expect(scoresOf(top1, "context_recall")).toEqual({
      reef: 1,
      kilimanjaro: 1,
      danube: 1,
      baikal: 0,
    });

    // answer_relevancy: the cosine of the question with the generated question (the fixture gives
    // the same one at each of the 3 attempts, so the mean is that cosine). The embeddings are
    // binary bags of words, one dimension per word, so cosine = shared / √(|question| · |generated|).
    // Words are lower-cased runs of letters and digits.
    const relevancy = {
      // {where, is, the, great, barrier, reef} (6) and those + {and, what, built, it} (10).
      reef: 6 / Math.sqrt(6 * 10),
      // {how, high, is, mount, kilimanjaro} (5); "…, and what kind of mountain is it?" adds
      // {and, what, kind, of, mountain, it} (11).
      kilimanjaro: 5 / Math.sqrt(5 * 11),
      // {into, which, sea, does, the, danube, flow} (7) and {which, sea, does, the, danube,
      // empty, into} (7): 6 shared.
      danube: 6 / 7,
      // {how, deep, is, lake, baikal} (5) and those + {and, where, does, it, lie} (10).
      baikal: 5 / Math.sqrt(5 * 10),
    };
    // answer_correctness: 0.75 · F1(TP, FP, FN) + 0.25 · cosine(answer, reference). TP: answer
    // statements whose phrase is in the reference's statements; FP: the others; FN: reference
    // statements whose phrase is in no answer statement (none here: each answer has it).
    const correctness = {
      // TP 1 (the coast), FP 2 (largest system, polyps), FN 0: P 1/3, R 1, F1 1/2. The answer has
      // 20 distinct words (the, great, barrier, reef, lies, off, coast, of, queensland, australia,
      // it, is, largest, coral, system, in, world, built, by, polyps), the reference 6, all shared.
      reef: 0.75 * 0.5 + 0.25 * (6 / Math.sqrt(20 * 6)),
      // TP 1 (5,895 metres), FP 1 (volcano): F1 2/3. 14 words (mount, kilimanjaro, rises, 5, 895,
      // metres, above, sea, level, it, is, a, dormant, volcano); the reference's 3 (5, 895, metres).
      kilimanjaro: 0.75 * (2 / 3) + 0.25 * (3 / Math.sqrt(14 * 3)),
      // TP 1: F1 1. {the, danube, empties, into, black, sea} and {the, black, sea}.
      danube: 0.75 * 1 + 0.25 * (3 / Math.sqrt(6 * 3)),
      // TP 1 (depth), FP 1 (Canada): F1 2/3. 12 words (lake, baikal, is, 1, 642, metres, deep, and,
      // lies, in, northern, canada) and the reference's 3: 3/√36 = 1/2.
      baikal: 0.75 * (2 / 3) + 0.25 * 0.5,
    };
    // factual_correctness: the fixture's claims are the statements, so tp/fp/fn are as above:
    // precision tp/(tp+fp), recall tp/(tp+fn), F1.
    const factual = { reef: 0.5, kilimanjaro: 2 / 3, danube: 1, baikal: 2 / 3 };
    // noise_sensitivity (lower is better): answer statements the reference does not support
    // ("incorrect") but a relevant passage (one that supports a reference statement) does.
    // Reef's "largest coral reef system" is in reef-1 (relevant) and not in the reference: 1 of
    // 3, in both runs. Reef's polyps are in reef-2, an irrelevant passage (the other mode);
    // Kilimanjaro's volcano likewise (kili-2); Baikal's Canada is in no passage: 0.
    const noise = { reef: 1 / 3, kilimanjaro: 0, danube: 0, baikal: 0 };
    for (const run of [top3, top1]) {
      // None of these depends on what was retrieved: equal in both runs.
      for (const [metric, expected] of [
        ["answer_relevancy", relevancy],
        ["answer_correctness", correctness],
        ["factual_correctness", factual],
        ["noise_sensitivity", noise],
      ] as const) {
        for (const [id, value] of Object.entries(expected)) {
          expect(run[id]?.scores[metric], `${metric} of ${id}`).toBeCloseTo(value, 12);
        }
      }
      for (const s of Object.values(run)) {
        const tokens = s.scores.tokens as number;
        const cost = s.scores.cost as number;
        expect(tokens).toBeGreaterThan(0);
        // gpt-4o-mini's prices: between all-input (0.15/M) and all-output (0.6/M).
        expect(cost).toBeGreaterThanOrEqual((tokens * 0.15) / 1e6);
        expect(cost).toBeLessThanOrEqual((tokens * 0.6) / 1e6);
      }
    }

    // The result keeps what the judge said: top-1's reef, faithfulness, statement by statement.
    const reef = top1.reef?.judgments?.faithfulness ?? [];
    expect(reef.map((s) => [s.step, s.about])).toEqual([
      ["statements", "the answer"],
      ["verdicts", "the retrieved context"],
    ]);
    expect(reef[1]?.reply.verdicts).toEqual([
      {
        statement: "The Great Barrier Reef lies off the coast of Queensland, Australia.",
        reason: 'the context says "off the coast of Queensland"', // in reef-1
        verdict: 1,
      },
      {
        statement: "The Great Barrier Reef is the largest coral reef system in the world.",
        reason: 'the context says "largest coral reef system"', // in reef-1
        verdict: 1,
      },
      {
        statement: "The Great Barrier Reef is built by coral polyps.",
        reason: 'the context does not say "coral polyps"', // only in reef-2, not retrieved
        verdict: 0,
      },
    ]);

    // What the fixture received. Per top-3 sample (3 passages): statements 2 (the answer's,
    // shared by faithfulness, answer correctness and noise sensitivity; the reference's, shared
    // by the last two), verdicts 6 (faithfulness: the answer's against the passages joined;
    // factual correctness: its claims against the reference, the same step as noise sensitivity's
    // answer statements against the reference, since the fixture's claims are the statements;
    // the reference's claims against the answer; noise sensitivity: both sets against each
    // passage, 3), context_verdict 3, attributions 1, question_generation 3 (strictness 3),
    // claims 2, classification 1: 18, 72 for 4 samples. The cache is shared by the targets, so
    // top-1 asks only what top-3 did not: every step but faithfulness's verdicts and context
    // recall's attributions (their context is one passage now) has the same input as one of
    // top-3's (top-1's passage is top-3's first): 2 per sample, 8.
    const first = answered(log1);
    expect(first.steps).toEqual({
      statements: 8,
      verdicts: 4 * 6 + 4,
      context_verdict: 4 * 3,
      attributions: 4 + 4,
      question_generation: 4 * 3,
      claims: 8,
      classification: 4,
    });
    // The pipeline: 4 answers per target (its own cache is keyed by target). Embeddings: top-3
    // asks 2 per sample (the question with the generated ones; answer with reference), top-1's
    // texts are the same: from the cache.
    expect(first).toMatchObject({ generation: 8, embeddings: 8 });
    // 96 answered. The n-th request is refused when 7 divides n, and sent again: 111 requests
    // (111 − ⌊111/7⌋ = 96), 15 refused.
    const all = requests(log1);
    expect(all.filter((r) => r.status === 429)).toHaveLength(15);
    expect(all.filter((r) => r.status !== 200 && r.status !== 429)).toEqual([]);
    expect(run.stderr).toContain(
      "llm-judge: the fixture answered 96 requests (8 generation, 80 judge steps, 8 embeddings) and refused 15 with HTTP 429",
    );

    // Every chat request with a judge prompt carried its step's schema as structured output,
    // named by the step; the pipeline's own calls carried none.
    const opening = (step: StepName) =>
      (STEP_PROMPTS[step] as (i: unknown) => string)({
        question: "",
        answer: step === "classification" ? [] : "",
        context: "",
        reference: "",
        statements: [],
        text: "",
        atomicity: "low",
        coverage: "low",
        ground_truth: [],
      }).split("\n")[0];
    const steps = Object.keys(STEP_SCHEMAS) as StepName[];
    const stepOf = new Map(steps.map((s) => [opening(s), s]));
    const chats = all.filter((r) => r.path === "/v1/chat/completions");
    for (const r of chats) {
      const step = stepOf.get(r.first_line as string);
      if (step === undefined) {
        expect(r.first_line).toBe(
          "Answer the question in one or two sentences, from the context only.",
        );
        expect(r.response_format).toBeUndefined();
      } else {
        expect(r.response_format).toEqual({
          type: "json_schema",
          json_schema: { name: step, schema: STEP_SCHEMAS[step], strict: true },
        });
      }
    }

    // cache: true: a re-run answers every sample from <outDir>/.cache/, the pipeline's calls and
    // every judge step and embedding alike: the fixture receives nothing.
    const log2 = join(out, "requests-2.jsonl");
    const again = cli(["run", "bench.config.ts", "--out-dir", results], log2);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stderr.match(/errored 0, 4 from the cache\)/g)).toHaveLength(2);
    expect(requests(log2)).toEqual([]);
    expect(again.stderr).toContain("llm-judge: judge steps by response_format name: none");
    for (const [name, before] of [
      ["top-3", top3],
      ["top-1", top1],
    ] as const) {
      const now = byId(results, name);
      expect(Object.values(now).every((s) => s.cached === true)).toBe(true);
      expect(Object.fromEntries(Object.entries(now).map(([id, s]) => [id, s.scores]))).toEqual(
        Object.fromEntries(Object.entries(before).map(([id, s]) => [id, s.scores])),
      );
      expect(judgmentsOf(now)).toEqual(judgmentsOf(before));
    }

    // rescore replays the judgments the result kept: no judge call, no embedding. A config that
    // re-exports the example's, in a folder of its own: rescore's cache is <config dir>/results/
    // .cache, so here a new, empty one, and nothing can have come from it.
    const elsewhere = mkdtempSync(join(tmpdir(), "llm-judge-config-"));
    const config = join(elsewhere, "bench.config.ts");
    writeFileSync(
      config,
      `export { default } from ${JSON.stringify(join(example, "bench.config.ts"))};\n`,
    );
    const log3 = join(out, "requests-3.jsonl");
    const rescored = join(out, "rescored");
    const rescore = cli(
      ["rescore", config, join(results, "top-1.json"), "--out-dir", rescored],
      log3,
    );
    expect(rescore.status, rescore.stderr).toBe(0);
    expect(requests(log3)).toEqual([]);
    expect(rescore.stderr).toContain(
      `unchanged: ${JUDGE_METRICS.join(", ")}, latency_ms, tokens, cost`,
    );
    expect(rescore.stderr).toContain("judge calls: 0");
    const replayed = byId(rescored, "top-1");
    expect(judgmentsOf(replayed)).toEqual(judgmentsOf(top1));

    // The README's judgments of one sample, as diff prints them.
    const diff = cli(
      [
        "diff",
        join(results, "top-3.json"),
        join(results, "top-1.json"),
        "--sample",
        "reef",
        "--judgments",
      ],
      join(out, "requests-4.jsonl"),
    );
    expect(diff.status, diff.stderr).toBe(0);
    expect(diff.stdout).toContain("judgments: faithfulness\n  top-3 (baseline): 1\n");
    expect(diff.stdout).toContain(
      '✗ not supported: The Great Barrier Reef is built by coral polyps.\n          the context does not say "coral polyps"',
    );
  }, 240_000);
});
