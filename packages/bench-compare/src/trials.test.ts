// Runs with trials in comparisons: tables of trial_std, check gating on it, the markdown line of
// flipped samples, and the tests pairing per-sample means.
import { BenchmarkResult, type SampleResult, type SampleTrial } from "@fastrag/bench-core";
import { describe, expect, it } from "vitest";
import { makeResult } from "./__fixtures__/make-result.js";
import { check } from "./check.js";
import { Comparison } from "./comparison.js";

/** A result whose sample i ran the trials `trials[i]` (scores of metric "em"). */
function withTrials(name: string, trials: readonly (readonly number[])[]): BenchmarkResult {
  const samples: SampleResult[] = trials.map((scores, i) => {
    const list: SampleTrial[] = scores.map((v) => ({
      status: "successful",
      scores: { em: v },
      answer: String(v),
      retrievedIds: [],
      retrievedUris: [],
      latencyMs: 1,
      error: null,
    }));
    const mean = scores.reduce((a, b) => a + b, 0) / scores.length;
    return {
      sampleId: `q${i + 1}`,
      question: `question ${i + 1}?`,
      status: "successful",
      scores: { em: mean },
      answer: String(scores[0]),
      retrievedIds: [],
      retrievedUris: [],
      latencyMs: 1,
      error: null,
      trials: list,
    };
  });
  return new BenchmarkResult({
    name,
    createdAt: new Date("2025-01-01T00:00:00Z"),
    durationS: 1,
    samples,
    higherIsBetter: { em: true },
    trials: (trials[0] as readonly number[]).length,
  });
}

// Sample stds (ddof 1): [1,1,1] → 0; [1,0,1] → √(1/3); [0,0,1] → √(1/3); [0,0,0] → 0.
const flaky = withTrials("flaky", [
  [1, 1, 1],
  [1, 0, 1],
  [0, 0, 1],
  [0, 0, 0],
]);
const steady = makeResult({ name: "steady", scores: { em: [1, 1, 0, 0] } });

describe("comparisons of runs with trials", () => {
  it("tabulates trial_std: the mean of the per-sample stds; — for a run without trials", () => {
    const expected = (2 * Math.sqrt(1 / 3)) / 4;
    expect(flaky.summary.em?.trial_std).toBeCloseTo(expected, 12);
    const table = Comparison.of([steady, flaky]).table({ stat: "trial_std", samples: "all" });
    expect(table.rows[0]?.cells[0]?.value).toBeUndefined();
    expect(table.rows[1]?.cells[0]?.value).toBeCloseTo(expected, 12);
    const md = Comparison.of([steady, flaky]).toMarkdown({ stat: "trial_std", samples: "all" });
    expect(md).toMatch(/\| steady \| — \|/);
    expect(md).toContain("em trial_std");
  });

  it("narrows trial_std to the common samples from their own trials", () => {
    // steady errors on sample 2: the common samples are 1, 3, 4 (stds 0, √(1/3), 0).
    const partial = makeResult({ name: "partial", scores: { em: [1, "error", 0, 0] } });
    const table = Comparison.of([partial, flaky]).table({ stat: "trial_std" });
    expect(table.rows[1]?.cells[0]?.value).toBeCloseTo(Math.sqrt(1 / 3) / 3, 12);
  });

  it("says under the markdown table how many samples flipped per metric", () => {
    const md = Comparison.of([steady, flaky]).toMarkdown();
    // Samples 2 and 3 disagree (max ≠ min); 1 and 4 do not.
    expect(md).toContain("flaky: 3 trials per sample; samples whose trials disagree (of 4): em 2");
    expect(md).not.toMatch(/steady: \d+ trials/);
    expect(Comparison.of([steady]).toMarkdown()).not.toContain("Trials");
  });

  it("pairs per-sample means in the paired tests", () => {
    const zero = makeResult({ name: "zero", scores: { em: [0, 0, 0, 0] } });
    const [c] = Comparison.of([zero, flaky]).significance({ baseline: "zero", test: "t-test" });
    // flaky's per-sample means 1, 2/3, 1/3, 0 against 0: differences with mean 1/2 and sample
    // variance ((1/2)² + (1/6)² + (1/6)² + (1/2)²) / 3 = 5/27, so t = (1/2) / √(5/27 / 4).
    expect(c?.n).toBe(4);
    expect(c?.meanDiff).toBeCloseTo(0.5, 12);
    expect(c?.t).toBeCloseTo(0.5 / Math.sqrt(5 / 27 / 4), 9);
  });

  it("check gates on trial_std, and a run without trials cannot pass such a bound", () => {
    const expected = (2 * Math.sqrt(1 / 3)) / 4;
    expect(check(flaky, { em: { stat: "trial_std", max: 0.3 } })).toEqual([]);
    const over = check(flaky, { em: { stat: "trial_std", max: 0.2 } });
    expect(over).toHaveLength(1);
    expect(over[0]).toMatchObject({ kind: "max", stat: "trial_std" });
    expect(over[0]?.value).toBeCloseTo(expected, 12);
    const none = check(steady, { em: { stat: "trial_std", max: 0.2 } });
    expect(none[0]).toMatchObject({ kind: "missing", value: null });
  });
});

describe("the CSV and JSON of runs with trials", () => {
  // flaky's samples 2 and 3 disagree: 2 flipped; its trial_std is (0 + 2·√(1/3) + 0) / 4.
  const expectedStd = (2 * Math.sqrt(1 / 3)) / 4;

  it("adds a trials column and one flipped column per metric at the end of the CSV", () => {
    const csv = Comparison.of([steady, flaky]).toCsv({ baseline: "steady" });
    const [header, steadyRow, flakyRow] = csv.split("\r\n");
    expect(header).toBe("label,run,em,em p,trials,em flipped");
    // steady ran each sample once: 1 trial, and nothing can flip (empty, not 0).
    expect(steadyRow).toBe("a,steady,0.5,,1,");
    expect(flakyRow?.endsWith(",3,2")).toBe(true);
  });

  it("names the flipped column by metric whatever the statistic", () => {
    const csv = Comparison.of([flaky]).toCsv("p95");
    expect(csv.split("\r\n")[0]).toBe("run,em p95,trials,em flipped");
  });

  it("gives each run its trials, and a run with trials its flipped counts and trial_std", () => {
    const json = JSON.parse(Comparison.of([steady, flaky]).toJson()) as {
      runs: Record<string, unknown>[];
    };
    expect(json.runs[0]?.trials).toBe(1);
    expect(json.runs[0]).not.toHaveProperty("flipped");
    expect(json.runs[0]).not.toHaveProperty("trial_std");
    expect(json.runs[1]?.trials).toBe(3);
    expect(json.runs[1]?.flipped).toEqual({ em: 2 });
    expect(((json.runs[1] as Record<string, unknown>).trial_std as { em: number }).em).toBeCloseTo(
      expectedStd,
      12,
    );
    // The new keys come after every existing one.
    expect(Object.keys(json.runs[1] as object).slice(-3)).toEqual([
      "trials",
      "flipped",
      "trial_std",
    ]);
  });

  it("adds nothing when no run has trials", () => {
    const other = makeResult({ name: "other", scores: { em: [0, 1, 1, 0] } });
    const c = Comparison.of([steady, other]);
    expect(c.toCsv().split("\r\n")[0]).toBe("run,em");
    const json = JSON.parse(c.toJson()) as { runs: Record<string, unknown>[] };
    expect(json.runs[0]).not.toHaveProperty("trials");
  });

  it("adds the trials' columns to the sliced CSV, per slice", () => {
    // Samples 1 and 2 in group "x" (one flips: sample 2), samples 3 and 4 in "y" (sample 3 flips).
    const grouped = (r: BenchmarkResult): BenchmarkResult =>
      new BenchmarkResult({
        name: r.name,
        createdAt: r.createdAt,
        durationS: r.durationS,
        samples: r.samples.map((s, i) => ({ ...s, metadata: { g: i < 2 ? "x" : "y" } })),
        higherIsBetter: r.higherIsBetter,
      });
    const csv = Comparison.of([grouped(steady), grouped(flaky)]).toCsv({ by: "metadata.g" });
    const lines = csv.split("\r\n");
    expect(lines[0]?.endsWith(",trials,em flipped")).toBe(true);
    const flakyRows = lines.filter((l) => l.includes(",flaky,"));
    expect(flakyRows).toHaveLength(2);
    for (const row of flakyRows) expect(row.endsWith(",3,1")).toBe(true);
    const steadyRows = lines.filter((l) => l.includes(",steady,"));
    for (const row of steadyRows) expect(row.endsWith(",1,")).toBe(true);
  });
});

describe("the HTML report of runs with trials", () => {
  it("lists each sample's spread over its trials, disagreeing samples first, with the filter", () => {
    const html = Comparison.of([steady, flaky]).toHtml({ resamples: 200 });
    const section = html.slice(html.indexOf('<section id="trials">'));
    expect(section).toContain('id="trials-disagree"');
    expect(section).toContain("<strong>2</strong> of 4 samples' trials disagree on em");
    const rows = [...section.matchAll(/<tr data-run="1" data-disagree="(\d)">/g)].map((m) => m[1]);
    expect(rows).toEqual(["1", "1", "0", "0"]);
    // Samples 2 and 3 spread 0–1: shown as "0.0000–1.0000"; the steady ones as one number.
    expect(section.match(/class="num spread flips" data-v="1">0\.0000–1\.0000</g)).toHaveLength(2);
    // The diff rows of samples whose trials disagree carry the mark the diff's filter reads.
    expect(html).toContain('id="diff-disagree"');
  });

  it("has no trials section when no run has trials", () => {
    const html = Comparison.of([steady]).toHtml({ resamples: 200 });
    expect(html).not.toContain('id="trials"');
    expect(html).not.toContain('id="diff-disagree"');
  });
});
