import { fakeEmbed, scriptedJudge } from "@fastrag/bench-core/testing";
import { describe, expectTypeOf, it } from "vitest";
import {
  AnswerCorrectness,
  type AnswerCorrectnessOptions,
  AnswerRelevancy,
  type ContextPrecisionOptions,
  type EmbedFunction,
  type FactualCorrectnessOptions,
  Faithfulness,
  type JudgeFunction,
  NoiseSensitivity,
  type NoiseSensitivityOptions,
  SemanticSimilarity,
  type StepInputs,
  type StepName,
  type StepPrompt,
  type StepPrompts,
  type StepReplies,
  type Verdict,
} from "./generation.js";

describe("EmbedFunction", () => {
  it("accepts a function whose texts parameter is mutable or readonly", () => {
    const mutable = async (texts: string[]): Promise<number[][]> => texts.map((t) => [t.length]);
    const readonlyInput = async (texts: readonly string[]): Promise<number[][]> =>
      texts.map((t) => [t.length]);
    const sync = (texts: string[]): Float32Array[] => texts.map(() => new Float32Array(2));
    expectTypeOf(mutable).toMatchTypeOf<EmbedFunction>();
    expectTypeOf(readonlyInput).toMatchTypeOf<EmbedFunction>();
    expectTypeOf(sync).toMatchTypeOf<EmbedFunction>();
    // Both go straight into the metric's options, with no cast.
    new SemanticSimilarity({ embed: mutable });
    new SemanticSimilarity({ embed: readonlyInput });
  });

  it("hands a function typed EmbedFunction readonly texts, and still refuses a wrong shape", () => {
    const typed: EmbedFunction = (texts) => {
      expectTypeOf(texts).toEqualTypeOf<readonly string[]>();
      return texts.map(() => [1]);
    };
    expectTypeOf(typed).parameter(0).toEqualTypeOf<readonly string[]>();
    // A function of one text, not a list, is not an embedder.
    expectTypeOf<(text: string) => number[][]>().not.toMatchTypeOf<EmbedFunction>();
    // Vectors, not a single number, per text.
    expectTypeOf<(texts: string[]) => number[]>().not.toMatchTypeOf<EmbedFunction>();
  });
});

describe("the judge metrics' options", () => {
  const judge = scriptedJudge({});
  const embed = fakeEmbed({});

  it("type a custom prompt's input by its step", () => {
    new Faithfulness({
      judge,
      prompts: {
        statements: (input) => {
          expectTypeOf(input).toEqualTypeOf<StepInputs["statements"]>();
          return `${input.question} ${input.answer}`;
        },
        verdicts: (input) => {
          expectTypeOf(input.statements).toEqualTypeOf<readonly string[]>();
          return input.context;
        },
      },
    });
    expectTypeOf<Parameters<StepPrompt<"classification">>[0]["ground_truth"]>().toEqualTypeOf<
      readonly string[]
    >();
    expectTypeOf<StepPrompts["claims"]>().toEqualTypeOf<StepPrompt<"claims"> | undefined>();
    // A prompt for an unknown step, or one that does not return text, is refused.
    // @ts-expect-error "claim" is not a step
    new Faithfulness({ judge, prompts: { claim: () => "" } });
    // @ts-expect-error a prompt returns the prompt's text
    new Faithfulness({ judge, prompts: { statements: () => 1 } });
    // @ts-expect-error the single-prompt judges' option is gone
    new Faithfulness({ judge, prompt: () => "" });
  });

  it("type each metric's own options as their literal values", () => {
    expectTypeOf<NonNullable<ContextPrecisionOptions["against"]>>().toEqualTypeOf<
      "reference" | "answer"
    >();
    expectTypeOf<NonNullable<FactualCorrectnessOptions["mode"]>>().toEqualTypeOf<
      "f1" | "precision" | "recall"
    >();
    expectTypeOf<NonNullable<NoiseSensitivityOptions["mode"]>>().toEqualTypeOf<
      "relevant" | "irrelevant"
    >();
    expectTypeOf<NonNullable<AnswerCorrectnessOptions["weights"]>>().toEqualTypeOf<
      readonly [number, number]
    >();
    new AnswerCorrectness({ judge, weights: [1, 0] });
    // @ts-expect-error two weights, [factual, similarity]
    new AnswerCorrectness({ judge, embed, weights: [1, 0, 1] });
    // @ts-expect-error AnswerRelevancy needs an embed
    new AnswerRelevancy({ judge });
    // @ts-expect-error a mode of another metric
    new NoiseSensitivity({ judge, mode: "f1" });
    // @ts-expect-error the old class is gone
    new AnswerRelevance({ judge });
  });

  it("take core's test kit as models, and type the checked replies", () => {
    expectTypeOf(judge).toMatchTypeOf<JudgeFunction>();
    expectTypeOf(embed).toMatchTypeOf<EmbedFunction>();
    expectTypeOf<Verdict["verdict"]>().toEqualTypeOf<0 | 1>();
    expectTypeOf<StepReplies["question_generation"]["noncommittal"]>().toEqualTypeOf<0 | 1>();
    expectTypeOf<StepName>().toEqualTypeOf<
      | "statements"
      | "verdicts"
      | "context_verdict"
      | "attributions"
      | "question_generation"
      | "claims"
      | "classification"
    >();
  });
});
