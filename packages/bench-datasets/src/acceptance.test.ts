import { ConfigurationError } from "@fastrag/bench-core";
import { describe, expect, it } from "vitest";
import { rejection, sharedData } from "./__fixtures__/helpers.js";
import { Predictions } from "./formats/predictions.js";
import { QADataset } from "./qa-dataset.js";
import { TrecRun } from "./trec/trec-run.js";

// Real third-party files, read in place from ../shared/data (see its README for sources).
describe("acceptance on real files", () => {
  it("squad-v2-sample: 626 samples, 333 with [''], 87 distinct paragraph ids", async () => {
    const dataset = await QADataset.load(sharedData("squad-v2-sample/dev-v2.0.sample.json"));
    expect(dataset.length).toBe(626);
    expect(
      dataset.samples.filter((s) => s.expectedAnswers.length === 1 && s.expectedAnswers[0] === ""),
    ).toHaveLength(333);
    expect(new Set(dataset.samples.flatMap((s) => s.relevantIds)).size).toBe(87);
    expect(new Set(dataset.samples.map((s) => s.id)).size).toBe(626);
  });

  it("squad-v2-sample predictions answer every sample of the dataset", async () => {
    const dataset = await QADataset.load(sharedData("squad-v2-sample/dev-v2.0.sample.json"));
    const engine = await Predictions.load(
      sharedData("squad-v2-sample/predictions/bidaf_selfattn_elmo.json"),
    );
    const signal = new AbortController().signal;
    let answered = 0;
    for (const sample of dataset) {
      const response = await engine.query(sample.question, { signal, sample });
      if (typeof response.answer === "string") answered++;
    }
    expect(answered).toBe(626);
  });

  it("nq-open: 100 samples whose answer lists become expected_answers", async () => {
    const dataset = await QADataset.load(
      sharedData("nq-open/NQ-open.efficientqa.dev.1.1.sample.jsonl"),
    );
    expect(dataset.length).toBe(100);
    expect(dataset.samples[0]).toEqual({
      question: "the last time la dodgers won the world series",
      expectedAnswers: ["1988"],
      relevantIds: [],
    });
    expect(dataset.samples[2]?.expectedAnswers).toEqual(["Salzburg, Austria", "Austria"]);
    expect(dataset.samples[99]?.expectedAnswers).toEqual(["Jennifer Hudson", "7"]);
    // 189 gold answers in all (python: sum(len(r["answer"]))).
    expect(dataset.samples.reduce((n, s) => n + s.expectedAnswers.length, 0)).toBe(189);
  });

  it("ragas e2e samples: user_input is the question, reference the answer", async () => {
    const dataset = await QADataset.load(sharedData("ragas/ragas_e2e_fallback_samples.json"));
    expect(dataset.length).toBe(5);
    const first = dataset.samples[0]!;
    expect(first.question).toBe(
      "What are the global implications of the USA Supreme Court ruling on abortion?",
    );
    expect(first.expectedAnswers).toHaveLength(1);
    expect(first.expectedAnswers[0]).toMatch(
      /^The global implications of the USA Supreme Court ruling on a/,
    );
    // retrieved_contexts is the system's output, not gold ids: it stays in metadata.
    expect(first.relevantIds).toEqual([]);
    expect(Object.keys(first.metadata ?? {}).sort()).toEqual([
      "response",
      "retrieved_contexts",
      "source",
    ]);
    expect(dataset.samples[4]?.question).toBe(
      "Should I pay off my mortgage early or invest the money?",
    );
  });

  it("ragas-wikiqa.csv: loads with an explicit mapping of correct_answer", async () => {
    const dataset = await QADataset.load(sharedData("ragas/ragas-wikiqa.csv"), {
      columns: {
        expectedAnswers: "correct_answer",
      },
    });
    expect(dataset.length).toBe(232);
    expect(dataset.samples[1]).toEqual({
      question: "what are points on a mortgage",
      expectedAnswers: [
        'Points, sometimes also called a "discount point", are a form of pre-paid interest .',
      ],
      relevantIds: [],
      metadata: {
        incorrect_answer: "Discount points may be different from origination fee or broker fee .",
      },
    });
    expect(dataset.samples[231]?.question).toBe("what does continuous improvement mean");
    // Without a mapping, correct_answer is recognised (an alias of expectedAnswers), and
    // incorrect_answer stays metadata: the same samples.
    const unmapped = await QADataset.load(sharedData("ragas/ragas-wikiqa.csv"));
    expect(unmapped.samples).toEqual(dataset.samples);
    expect(unmapped.warnings).toEqual([]);
    // Mapped away, nothing is left to score against, and loading says so (unless a mapping
    // names the columns: then the user has said where the answers are).
    const none = QADataset.fromRecords([{ question: "q", incorrect_answer: "x" }]);
    expect(none.warnings).toEqual([
      'records: no column of expected answers or relevant ids was found, so answer and retrieval metrics will score no sample (latency and other metrics that need neither are unaffected). Columns kept as metadata: "incorrect_answer". If one holds the gold answers or ids, map it: { expectedAnswers: "<column>" } or { relevantIds: "<column>" }; { expectedAnswers: null } says there are none and silences this.',
    ]);
    // Silenced by saying there are none; not raised where a column was found, though empty, nor
    // for a sample's own metadata object (which holds no columns).
    expect(
      QADataset.fromRecords([{ question: "q" }], { columns: { expectedAnswers: null } }).warnings,
    ).toEqual([]);
    expect(QADataset.fromRecords([{ question: "q", answers: [] }]).warnings).toEqual([]);
    const native = QADataset.fromRecords([
      { question: "q", metadata: { lang: "en" } },
      { question: "r", metadata: { lang: "fr" } },
    ]);
    expect(native.warnings).toHaveLength(1);
    expect(native.warnings[0]).not.toMatch(/lang/);
    const error = await rejection(
      QADataset.load(sharedData("ragas/ragas-wikiqa.csv"), {
        columns: { expectedAnswers: "gold" },
      }),
    );
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(
      /column "gold" \(mapped to expectedAnswers\) not found; columns found: "question", "correct_answer", "incorrect_answer"/,
    );
  });

  it("trec_eval qrels.test + results.test: 3 queries, graded judgments, trec_eval order", async () => {
    const dataset = await QADataset.fromTrec({ qrels: sharedData("trec_eval/qrels.test") });
    expect(dataset.samples.map((s) => s.id)).toEqual(["301", "302", "303"]);
    // num_rel in out.test is 561.
    expect(dataset.samples.reduce((n, s) => n + s.relevantIds.length, 0)).toBe(561);
    const run = await TrecRun.load(sharedData("trec_eval/results.test"));
    const signal = new AbortController().signal;
    let retrieved = 0;
    let relevantRetrieved = 0;
    for (const sample of dataset) {
      const chunks = await run.retrieve(sample.question, { signal, sample });
      retrieved += chunks.length;
      const relevant = new Set(sample.relevantIds);
      for (const chunk of chunks) if (relevant.has(chunk.id)) relevantRetrieved++;
      for (let i = 1; i < chunks.length; i++) {
        const [a, b] = [chunks[i - 1]!, chunks[i]!];
        expect(a.score! > b.score! || (a.score === b.score && a.id > b.id)).toBe(true);
      }
    }
    // num_ret 1500 and num_rel_ret 131 in out.test.
    expect(retrieved).toBe(1500);
    expect(relevantRetrieved).toBe(131);
  });
});
