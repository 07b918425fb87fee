// `diff --sample <id> [--judgments]`, in-process through `main`, on result files written here.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  BenchmarkResult,
  type Judgments,
  type SampleResult,
  type SampleTrial,
} from "@fastrag/bench-core";
import { beforeAll, describe, expect, it } from "vitest";
import { memoryIo } from "../__fixtures__/in-process.js";
import { main } from "../cli.js";

const HOSTILE = "<script>alert(1)</script>\u001b[2J";

function faithfulness(verdicts: readonly [statement: string, verdict: 0 | 1][]): Judgments {
  return {
    faithfulness: [
      {
        step: "statements",
        attempt: 0,
        about: "the answer",
        key: "k-statements",
        reply: { statements: verdicts.map(([s]) => s) },
      },
      {
        step: "verdicts",
        attempt: 0,
        about: "the retrieved context",
        key: "k-verdicts",
        reply: {
          verdicts: verdicts.map(([statement, verdict]) => ({
            statement,
            reason: `reason for ${statement}`,
            verdict,
          })),
        },
      },
    ],
  };
}

function sample(id: string, score: number, judgments?: Judgments): SampleResult {
  return {
    sampleId: id,
    question: `question ${id}?`,
    status: "successful",
    scores: { faithfulness: score, "recall@5": 1 },
    answer: `answer ${id}`,
    retrievedIds: ["d1"],
    retrievedUris: [null],
    latencyMs: 5,
    error: null,
    ...(judgments === undefined ? {} : { judgments }),
  };
}

async function save(dir: string, name: string, samples: SampleResult[], trials?: number) {
  const path = join(dir, `${name}.json`);
  await new BenchmarkResult({
    name,
    createdAt: new Date("2026-01-01T00:00:00Z"),
    durationS: 1,
    higherIsBetter: { faithfulness: true, "recall@5": true },
    samples,
    ...(trials === undefined ? {} : { trials }),
  }).save(path);
  return path;
}

async function run(argv: string[]) {
  const { io, out, err } = memoryIo(process.cwd());
  const code = await main(argv, io);
  return { code, stdout: out(), stderr: err() };
}

let base = "";
let cand = "";
let trials = "";
beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), "fastrag-diff-sample-"));
  base = await save(dir, "base", [
    sample("q1", 1, faithfulness([["Paris is the capital.", 1]])),
    sample("q2", 0),
  ]);
  cand = await save(dir, "cand", [
    sample(
      "q1",
      0.5,
      faithfulness([
        ["Paris is the capital.", 1],
        [HOSTILE, 0],
      ]),
    ),
    sample("q2", 1),
    sample("q3", 1),
  ]);
  const trial = (score: number, verdict: 0 | 1): SampleTrial => ({
    status: "successful",
    scores: { faithfulness: score, "recall@5": 1 },
    answer: "a",
    retrievedIds: [],
    retrievedUris: [],
    latencyMs: 1,
    error: null,
    judgments: faithfulness([["A trial's statement.", verdict]]),
  });
  trials = await save(
    dir,
    "trials",
    [{ ...sample("q1", 0.5), trials: [trial(1, 1), trial(0, 0)] }],
    2,
  );
});

describe("fastrag-bench diff --sample --judgments", () => {
  it("prints each run's statements with their verdicts and reasons, per metric", async () => {
    const r = await run(["diff", base, cand, "--sample", "q1", "--judgments"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      [
        'sample q1: "question q1?"',
        "  base (baseline): successful  faithfulness 1, recall@5 1",
        "  cand (candidate): successful  faithfulness 0.5000, recall@5 1",
        "",
        "judgments: faithfulness",
        "  base (baseline): 1",
        "    statements of the answer (1)",
        "      · Paris is the capital.",
        "    verdicts against the retrieved context",
        "      ✓ supported: Paris is the capital.",
        "          reason for Paris is the capital.",
        "  cand (candidate): 0.5000",
        "    statements of the answer (2)",
        "      · Paris is the capital.",
        "      · <script>alert(1)</script>\\u001b[2J",
        "    verdicts against the retrieved context: ✓1 ✗1",
        "      ✓ supported: Paris is the capital.",
        "          reason for Paris is the capital.",
        "      ✗ not supported: <script>alert(1)</script>\\u001b[2J",
        "          reason for <script>alert(1)</script>\\u001b[2J",
        "",
      ].join("\n"),
    );
  });

  it("with --metric, shows that metric's change only", async () => {
    const r = await run(["diff", base, cand, "--sample", "q1", "--metric", "recall@5"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("  base (baseline): successful  recall@5 1\n");
    expect(r.stdout).toContain("  recall@5: 1 → 1\n");
    expect(r.stdout).not.toContain("judgments");
    const j = await run([
      "diff",
      base,
      cand,
      "--sample",
      "q1",
      "--metric",
      "recall@5",
      "--judgments",
    ]);
    expect(j.stdout).toContain(
      "no judgments kept for recall@5 for this sample in base or cand (only judge metrics keep them",
    );
    const f = await run(["diff", base, cand, "--sample", "q1", "--metric", "faithfulness"]);
    expect(f.stdout).toContain("  faithfulness: 1 → 0.5000 (-0.5000)\n");
  });

  it("says when a sample kept no judgments, and when a run lacks the sample", async () => {
    const none = await run(["diff", base, cand, "--sample", "q2", "--judgments"]);
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).toContain("\nno judgments kept for this sample in base or cand");
    const one = await run(["diff", base, cand, "--sample", "q3", "--judgments"]);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toContain(`  base (baseline): not in this run (${base})`);
  });

  it("prints a run with trials trial by trial", async () => {
    const r = await run(["diff", base, trials, "--sample", "q1", "--judgments"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      [
        "  trials (candidate): 0.5000 (mean of 2 trials)",
        "    trial 1: 1",
        "      statements of the answer (1)",
        "        · A trial's statement.",
        "      verdicts against the retrieved context",
        "        ✓ supported: A trial's statement.",
        "            reason for A trial's statement.",
        "    trial 2: 0",
      ].join("\n"),
    );
    expect(r.stdout).toContain("  trials (candidate): successful, 2 trials  faithfulness 0.5000");
  });

  it("gives the raw judgments in --json", async () => {
    const r = await run(["diff", base, cand, "--sample", "q1", "--judgments", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const d = JSON.parse(r.stdout);
    expect(Object.keys(d)).toEqual(["sample", "baseline", "candidate"]);
    expect(d.baseline).toMatchObject({
      run: "base",
      found: true,
      sample_id: "q1",
      status: "successful",
    });
    expect(d.candidate.judgments).toEqual(
      faithfulness([
        ["Paris is the capital.", 1],
        [HOSTILE, 0],
      ]),
    );
    // The ESC of the hostile statement stays a JSON escape, never a raw control character.
    expect(r.stdout).not.toContain("\u001b");
    const q2 = JSON.parse(
      (await run(["diff", base, cand, "--sample", "q2", "--judgments", "--json"])).stdout,
    );
    expect(q2.baseline.judgments).toBeNull();
    const q3 = JSON.parse((await run(["diff", base, cand, "--sample", "q3", "--json"])).stdout);
    expect(q3.baseline).toEqual({ run: "base", found: false });
    expect(Object.keys(q3.candidate)).not.toContain("judgments");
    const t = JSON.parse(
      (
        await run([
          "diff",
          base,
          trials,
          "--sample",
          "q1",
          "--metric",
          "faithfulness",
          "--judgments",
          "--json",
        ])
      ).stdout,
    );
    expect(t.metric).toBe("faithfulness");
    expect(t.candidate.trials).toHaveLength(2);
    expect(t.candidate.trials[1]).toMatchObject({
      trial: 2,
      scores: { faithfulness: 0 },
      judgments: faithfulness([["A trial's statement.", 0]]),
    });
  });

  it("refuses a sample id in neither run, naming it, and flags that do not go together", async () => {
    const missing = await run(["diff", base, cand, "--sample", "q9", "--judgments"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(
      `error: --sample "q9": no sample of that id in ${base} or ${cand}; its ids look like "q1", "q2"`,
    );
    const noMetric = await run(["diff", base, cand]);
    expect(noMetric.code).toBe(2);
    expect(noMetric.stderr).toContain("required option '--metric <metric>' not specified");
    const alone = await run(["diff", base, cand, "--metric", "faithfulness", "--judgments"]);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain(
      "--judgments shows one sample's judgments: give it with --sample",
    );
    const gate = await run(["diff", base, cand, "--sample", "q1", "--fail-on-regression"]);
    expect(gate.code).toBe(2);
    const metric = await run(["diff", base, cand, "--sample", "q1", "--metric", "nope"]);
    expect(metric.code).toBe(2);
    expect(metric.stderr).toContain(
      'error: --metric "nope": neither run has that metric; theirs: "faithfulness", "recall@5"',
    );
  });
});
