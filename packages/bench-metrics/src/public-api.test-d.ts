import { describe, expectTypeOf, it } from "vitest";
import { type EmbedFunction, SemanticSimilarity } from "./generation.js";

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
