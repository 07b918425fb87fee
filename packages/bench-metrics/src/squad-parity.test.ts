/**
 * The acceptance test of the SQuAD metrics: real leaderboard predictions on a sample of the
 * SQuAD 2.0 dev set, replayed through `Predictions` and the `Benchmark` runner, reproduce the
 * scores of the official evaluate-v2.0.py (from ../shared/data/README.md), divided by 100, to
 * 1e-9: overall and on the answerable (HasAns) and unanswerable (NoAns) subsets.
 */
import { Benchmark } from "@fastrag/bench-core";
import { Predictions, QADataset } from "@fastrag/bench-datasets";
import { describe, expect, it } from "vitest";
import { sharedData } from "../../../test-support/shared-data.js";
import { ExactMatch, TokenF1 } from "./generation.js";

const DATA = sharedData("squad-v2-sample/");

// Official scores (0–100) from evaluate-v2.0.py on exactly these files.
const OFFICIAL = [
  {
    file: "bidaf_selfattn_elmo.json",
    exact: 62.61980830670927,
    f1: 64.61080149788741,
    hasAnsExact: 51.877133105802045,
    hasAnsF1: 56.13092743234652,
    noAnsExact: 72.07207207207207,
  },
  {
    file: "nlnet.json",
    exact: 76.6773162939297,
    f1: 78.53795831431614,
    hasAnsExact: 69.96587030716724,
    hasAnsF1: 73.94116691045019,
    noAnsExact: 82.58258258258259,
  },
];

function mean(values: readonly number[]): number {
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}

describe("SQuAD v2.0 parity", () => {
  it.each(OFFICIAL)("$file matches evaluate-v2.0.py", async (official) => {
    const dataset = await QADataset.load(`${DATA}dev-v2.0.sample.json`);
    expect(dataset.samples).toHaveLength(626);
    const engine = await Predictions.load(`${DATA}predictions/${official.file}`);
    const result = await new Benchmark({
      dataset,
      metrics: [new ExactMatch(), new TokenF1()],
    }).run(engine, { name: official.file });
    expect(result.status).toEqual({ successful: 626, errored: 0, incomplete: 0 });

    const closeTo = (ours: number | null | undefined, theirs: number) =>
      expect(Math.abs((ours as number) - theirs / 100)).toBeLessThan(1e-9);
    closeTo(result.summary.exact_match?.mean, official.exact);
    closeTo(result.summary.f1?.mean, official.f1);

    const impossible = new Map(dataset.samples.map((s) => [s.id, s.metadata?.is_impossible]));
    const hasAns = result.samples.filter((s) => impossible.get(s.sampleId) === false);
    const noAns = result.samples.filter((s) => impossible.get(s.sampleId) === true);
    expect([hasAns.length, noAns.length]).toEqual([293, 333]);
    closeTo(mean(hasAns.map((s) => s.scores.exact_match as number)), official.hasAnsExact);
    closeTo(mean(hasAns.map((s) => s.scores.f1 as number)), official.hasAnsF1);
    closeTo(mean(noAns.map((s) => s.scores.exact_match as number)), official.noAnsExact);
    // On an unanswerable question F1 is 1 exactly when EM is, so NoAns F1 = NoAns exact.
    closeTo(mean(noAns.map((s) => s.scores.f1 as number)), official.noAnsExact);
  });
});
