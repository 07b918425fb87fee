// The judgments beside each listed sample's score (judgments.ts), through Comparison.toHtml.
import { createHash } from "node:crypto";
import {
  BenchmarkResult,
  type Judgments,
  type SampleResult,
  type SampleTrial,
} from "@fastrag/bench-core";
import { describe, expect, it } from "vitest";
import { makeResult } from "../__fixtures__/make-result.js";
import { Comparison } from "../comparison.js";
import { count, elementsOf } from "./__fixtures__/report.js";
import { JUDGMENT_ITEMS_SHOWN, JUDGMENTS_CSS } from "./judgments.js";
import { REPORT_CSS } from "./styles.js";

const HOSTILE = "<script>alert(1)</script>";

/** Faithfulness's two steps: the answer's statements, then a verdict on each. */
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
    scores: { faithfulness: score },
    answer: `answer ${id}`,
    retrievedIds: ["d1"],
    retrievedUris: [null],
    latencyMs: 5,
    error: null,
    ...(judgments === undefined ? {} : { judgments }),
  };
}

function run(name: string, samples: SampleResult[]): BenchmarkResult {
  return new BenchmarkResult({
    name,
    createdAt: new Date("2025-01-01T00:00:00Z"),
    durationS: 1,
    higherIsBetter: { faithfulness: true },
    samples,
  });
}

describe("Comparison.toHtml: judgments", () => {
  // q1 regressed 1 → 0.5 (the run's judge found a hostile, unsupported statement); q2 improved
  // 0 → 1, its baseline written without judgments; q3 unchanged (not listed).
  const base = run("base", [
    sample("q1", 1, faithfulness([["Paris is the capital.", 1]])),
    sample("q2", 0),
    sample("q3", 1, faithfulness([["unlisted statement", 1]])),
  ]);
  const cand = run("cand", [
    sample(
      "q1",
      0.5,
      faithfulness([
        ["Paris is the capital.", 1],
        [HOSTILE, 0],
      ]),
    ),
    sample("q2", 1, faithfulness([["Rollo led the Normans.", 1]])),
    sample("q3", 1, faithfulness([["unlisted statement", 1]])),
  ]);
  const html = Comparison.of([base, cand]).toHtml({ resamples: 50 });
  const rows = elementsOf(html, /<tr data-kind="/, "</tr>");

  it("shows each listed side's statements, verdicts and reasons, collapsed, beside the scores", () => {
    expect(html).toContain("<th>judgments</th>");
    const [regressed] = rows;
    const cell = elementsOf(regressed as string, /<td class="judg-cell">/, "</td>")[0] as string;
    // Baseline first, then the run: each a closed <details> with the verdicts' tally.
    const details = elementsOf(cell, /<details class="judg">/, "</details>");
    expect(details).toHaveLength(2);
    expect(details[0]).toContain("<summary>baseline: faithfulness ✓1 ✗0</summary>");
    expect(details[1]).toContain("<summary>run: faithfulness ✓1 ✗1</summary>");
    expect(cell).not.toMatch(/<details[^>]* open/);
    expect(details[1]).toContain('<p class="jh">faithfulness <span class="num">0.5000</span></p>');
    expect(details[1]).toContain('<p class="jt">statements of the answer</p>');
    expect(details[1]).toContain(
      '<p class="jt">verdicts against the retrieved context · ✓1 ✗1</p>',
    );
    expect(details[1]).toContain(
      '<li class="pass"><span class="jv">✓ supported</span>Paris is the capital.<span class="jr">reason for Paris is the capital.</span></li>',
    );
    expect(details[1]).toContain(
      '<li class="fail"><span class="jv">✗ not supported</span>&lt;script&gt;alert(1)&lt;/script&gt;',
    );
    // The judgments column sits right after Δ, before the answers.
    expect(regressed).toMatch(/data-v="-0\.5">-0\.5000<\/td><td class="judg-cell">/);
  });

  it("escapes every statement: a hostile one shows as text, never as a tag", () => {
    expect(html).not.toContain(HOSTILE);
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(count(html, "<script")).toBe(1);
    expect(count(html, "<style")).toBe(1);
  });

  it("says so for a side that kept none, and lists only samples the diff lists", () => {
    const improved = rows[1] as string;
    expect(improved).toContain('<span class="judg-none">baseline: no judgments kept</span>');
    expect(improved).toContain("<summary>run: faithfulness ✓1 ✗0</summary>");
    expect(html).not.toContain("unlisted statement");
  });

  it("adds the judgments' stylesheet, allowed by the CSP's hash", () => {
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] as string;
    expect(style).toBe(REPORT_CSS + JUDGMENTS_CSS);
    const hash = createHash("sha256").update(style, "utf8").digest("base64");
    expect(html).toContain(`style-src 'sha256-${hash}'`);
    expect(html).not.toContain("//");
  });

  it(`lists at most ${JUDGMENT_ITEMS_SHOWN} statements per step and counts the rest`, () => {
    const many = Array.from({ length: 60 }, (_, i) => [`s${i}`, 1] as [string, 1]);
    const out = Comparison.of([
      run("a", [sample("q1", 0)]),
      run("b", [sample("q1", 1, faithfulness(many))]),
    ]).toHtml({ resamples: 50 });
    expect(out).toContain(">s49<");
    expect(out).not.toContain(">s50<");
    expect(count(out, '<li class="more">+10 more</li>')).toBe(2); // statements and verdicts
  });

  it("shows a run with trials trial by trial, in the diff and the trials table", () => {
    const trial = (score: number, verdict: 0 | 1): SampleTrial => ({
      status: "successful",
      scores: { faithfulness: score },
      answer: "a",
      retrievedIds: [],
      retrievedUris: [],
      latencyMs: 1,
      error: null,
      judgments: faithfulness([["The trial's statement.", verdict]]),
    });
    const withTrials = new BenchmarkResult({
      name: "trials",
      createdAt: new Date("2025-01-01T00:00:00Z"),
      durationS: 1,
      higherIsBetter: { faithfulness: true },
      trials: 2,
      samples: [{ ...sample("q1", 0.5), trials: [trial(1, 1), trial(0, 0)] }],
    });
    const out = Comparison.of([run("base", [sample("q1", 1)]), withTrials]).toHtml({
      resamples: 50,
    });
    const diffRow = elementsOf(out, /<tr data-kind="/, "</tr>")[0] as string;
    expect(diffRow).toContain("<summary>run: faithfulness ✓1 ✗1</summary>");
    expect(diffRow).toContain('<p class="jtrial">trial 1 <span class="num">1.0000</span></p>');
    expect(diffRow).toContain('<p class="jtrial">trial 2 <span class="num">0.0000</span></p>');
    const trials = elementsOf(out, /<section id="trials">/, "</section>")[0] as string;
    expect(trials).toContain("<th>trials</th><th>judgments</th>");
    expect(trials).toContain("<summary>trials: faithfulness ✓1 ✗1</summary>");
  });

  it("shows judgments for the first maxJudgmentRows samples of each category, and says so", () => {
    const regressed = (id: string, score: number) =>
      sample(id, score, faithfulness([[`statement of ${id}`, 0]]));
    const a = run("a", [sample("q1", 1), sample("q2", 1), sample("q3", 0)]);
    const b = run("b", [regressed("q1", 0), regressed("q2", 0.5), regressed("q3", 1)]);
    const out = Comparison.of([a, b]).toHtml({ resamples: 50, maxJudgmentRows: 1 });
    const [first, second, improved] = elementsOf(out, /<tr data-kind="/, "</tr>");
    // q1 fell furthest, so it comes first and keeps its judgments; q2 is past the cap.
    expect(first).toContain("statement of q1");
    expect(second).toContain("question q2?");
    expect(second).toContain("judgments not shown: past the first 1");
    expect(second).not.toContain("statement of q2");
    // The cap is per category: q3 is the first improved sample.
    expect(improved).toContain("statement of q3");
    expect(out).toContain(
      "Judgments are shown for the first 1 listed samples with judgments per category and run",
    );
    const none = Comparison.of([a, b]).toHtml({ resamples: 50, maxJudgmentRows: 0 });
    expect(none).not.toContain("judg");
    expect(() => Comparison.of([a, b]).toHtml({ maxJudgmentRows: -1 })).toThrow(
      /toHtml: maxJudgmentRows: expected an integer ≥ 0/,
    );
  });

  it("leaves a report of results without judgments as it was: no column, no extra rules", () => {
    const plain = Comparison.of([
      makeResult({ name: "a", scores: { m: [1, 0] } }),
      makeResult({ name: "b", scores: { m: [0, 1] } }),
    ]).toHtml({ resamples: 50 });
    expect(plain).not.toContain("judg");
    expect(/<style>([\s\S]*?)<\/style>/.exec(plain)?.[1]).toBe(REPORT_CSS);
  });
});
