/**
 * "Install only what you need" holds for bundles too: importing `Recall` alone, from the
 * `./retrieval` subpath or from the root, must leave the generation (and operational) code out.
 * The package's `sideEffects: false` and its one-concept-per-file layout make that work; esbuild
 * bundles the source here, resolving the package's entry points the way its exports map does.
 */
import { fileURLToPath } from "node:url";
import { build, type Plugin } from "esbuild";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL(".", import.meta.url));

/** Resolves `@fastrag/bench-metrics[/sub]` to the source entry that the exports map builds from. */
const selfSource: Plugin = {
  name: "bench-metrics-source",
  setup(b) {
    b.onResolve(
      { filter: /^@fastrag\/bench-metrics(\/(retrieval|generation|operational))?$/ },
      (a) => {
        const sub = a.path.split("/")[2] ?? "index";
        return { path: `${SRC}${sub}.ts` };
      },
    );
  },
};

async function bundle(entry: string): Promise<string> {
  const out = await build({
    stdin: { contents: entry, resolveDir: SRC, loader: "ts" },
    bundle: true,
    write: false,
    format: "esm",
    platform: "node",
    // Core is a peer dependency: the user's bundle has it once, whatever metrics it imports.
    external: ["@fastrag/bench-core"],
    plugins: [selfSource],
    logLevel: "silent",
  });
  return out.outputFiles[0]?.text ?? "";
}

// Strings that exist only in the judge metrics' code (DESIGN §11): names, step names, prompts.
const JUDGE = [
  "faithfulness",
  "noise_sensitivity",
  "question_generation",
  "context_verdict",
  "Break an answer down into simple statements",
];
// Strings that exist only in generation code, and only in retrieval code.
const GENERATION = [
  "exact_match",
  "answer_contains",
  "rouge_l",
  "unparsable judge reply",
  "normalizeAnswer",
  ...JUDGE,
];
const OPERATIONAL = ["latency_ms", "usage.cost"];

describe("tree-shaking", () => {
  it.each([
    ["the ./retrieval subpath", 'import { Recall } from "@fastrag/bench-metrics/retrieval";'],
    ["the root entry", 'import { Recall } from "@fastrag/bench-metrics";'],
  ])("a bundle of Recall from %s leaves generation code out", async (_, importLine) => {
    const code = await bundle(`${importLine}\nconsole.log(new Recall({ k: 5 }).name);`);
    expect(code).toContain("recall@");
    expect(code).toContain("var Recall = class");
    for (const s of [...GENERATION, ...OPERATIONAL]) expect(code, s).not.toContain(s);
    // Other retrieval metrics are left out too.
    expect(code).not.toContain("ndcg@");
  });

  it("a bundle that does use a generation metric carries it (the check can fail)", async () => {
    const code = await bundle(
      'import { ExactMatch } from "@fastrag/bench-metrics/generation";\nconsole.log(new ExactMatch().name);',
    );
    expect(code).toContain("exact_match");
    expect(code).not.toContain("recall@");
    // A lexical metric leaves the judge metrics, their steps and prompts out.
    for (const s of JUDGE) expect(code, s).not.toContain(s);
  });

  it("a bundle of one judge metric carries its steps but not the other judge metrics", async () => {
    const code = await bundle(
      'import { Faithfulness } from "@fastrag/bench-metrics/generation";\nconsole.log(Faithfulness.name);',
    );
    expect(code).toContain('"faithfulness"');
    expect(code).toContain("Break an answer down into simple statements");
    for (const s of ["noise_sensitivity", "answer_correctness", "exact_match"]) {
      expect(code, s).not.toContain(s);
    }
  });
});
