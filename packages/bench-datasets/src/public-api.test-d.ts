import type { Benchmark, DatasetLike, QueryEngine, Retriever } from "@fastrag/bench-core";
import { describe, expectTypeOf, it } from "vitest";
import {
  type ColumnMapping,
  type LoadOptions,
  type Predictions,
  QADataset,
  type TrecRun,
} from "./index.js";

describe("public types", () => {
  it("a QADataset is a Benchmark dataset", () => {
    expectTypeOf<QADataset>().toMatchTypeOf<DatasetLike>();
    expectTypeOf<
      ConstructorParameters<typeof Benchmark>[0]["dataset"]
    >().toMatchTypeOf<DatasetLike>();
    expectTypeOf(QADataset.load).returns.resolves.toEqualTypeOf<QADataset>();
  });

  it("load takes a path or a URL, and a signal and timeoutMs for downloads", () => {
    expectTypeOf(QADataset.load).parameter(0).toEqualTypeOf<string | URL>();
    expectTypeOf<LoadOptions["signal"]>().toEqualTypeOf<AbortSignal | undefined>();
    expectTypeOf<LoadOptions["timeoutMs"]>().toEqualTypeOf<number | undefined>();
  });

  it("replay targets are a Retriever and a QueryEngine", () => {
    expectTypeOf<TrecRun>().toMatchTypeOf<Retriever>();
    expectTypeOf<Predictions>().toMatchTypeOf<QueryEngine>();
  });

  it("a ColumnMapping names columns per camelCase field, or null", () => {
    expectTypeOf<{
      expectedAnswers: "correct_answer";
      relevantIds: null;
    }>().toMatchTypeOf<ColumnMapping>();
    expectTypeOf<{ answer: "x" }>().not.toMatchTypeOf<ColumnMapping>();
  });
});
