// The public API's names: a rename or a removal fails here. New names are added to the lists.
import { describe, expectTypeOf, it } from "vitest";
import type * as Root from "./index.js";

describe("@fastrag/bench-compare's exported names", () => {
  it("keeps every value of the root entry", () => {
    expectTypeOf<keyof typeof Root>().toEqualTypeOf<
      | "COMPARISON_FORMAT"
      | "Comparison"
      | "DEFAULT_MAX_PAIRWISE_RUNS"
      | "DEFAULT_PERMUTATIONS"
      | "MISSING"
      | "SLICED_COMPARISON_FORMAT"
      | "bootstrapCi"
      | "check"
      | "csvField"
      | "diff"
      | "escapeCell"
      | "formatNumber"
      | "isLatencyMetric"
      | "judgmentViews"
      | "pairSamples"
      | "pairedScores"
      | "pairedTTest"
      | "randomizationTest"
      | "renderCsv"
      | "renderJson"
      | "renderMarkdown"
    >();
  });

  it("types slicing and the left-out samples", () => {
    expectTypeOf<Root.ComparisonSlice["comparison"]>().toEqualTypeOf<Root.Comparison>();
    expectTypeOf<Root.RenderOptions["by"]>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Root.HtmlReportOptions["by"]>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Root.SliceTable>().not.toBeNever();
    expectTypeOf<Root.LeftOutSamples>().toEqualTypeOf<{
      readonly samples: number;
      readonly errored: number;
      readonly unscored: number;
    }>();
    expectTypeOf<Root.Comparison["slices"]>().returns.toEqualTypeOf<Root.ComparisonSlice[]>();
    expectTypeOf<Root.RowTrials["trialStd"]>().toEqualTypeOf<
      readonly (number | null | undefined)[] | undefined
    >();
    expectTypeOf<Root.TableSignificance["leftOutSamples"]>().toEqualTypeOf<
      Root.LeftOutSamples | undefined
    >();
  });
});
