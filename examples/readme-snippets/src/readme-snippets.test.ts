import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { type CheckResult, checkSnippets, extractSnippets, type Snippet } from "./snippets.js";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const repoRoot = join(packageDir, "../..");

/** The root README and every package's: the files users copy code from. */
const readmes = [
  "README.md",
  ...readdirSync(join(repoRoot, "packages"))
    .sort()
    .map((dir) => `packages/${dir}/README.md`)
    .filter((path) => existsSync(join(repoRoot, path))),
];

/**
 * Snippets with known errors, checked in the same program: they prove that the packages' real
 * types are in force (a wrong option or member is an error, never an `any`), that fragments get
 * the README's names, and that errors point at the README line.
 */
const CANARY = "<canary>.md";
const canaryMarkdown = [
  "# canary", // 1
  "", // 2
  "```ts", // 3
  'import { Recall } from "@fastrag/bench-metrics/retrieval";', // 4
  "", // 5
  "new Recall({ kk: 5 });", // 6
  "```", // 7
  "", // 8
  "- a fragment, indented in a list item:", // 9
  "", // 10
  "  ```ts", // 11
  '  const loaded = await QADataset.load("eval.json");', // 12
  "  loaded.sampels;", // 13
  "  ```", // 14
  "", // 15
  "```ts skip-check", // 16
  "this block is not TypeScript and is never compiled", // 17
  "```", // 18
].join("\n");

let result: CheckResult;

beforeAll(() => {
  const snippets: Snippet[] = [];
  for (const readme of readmes) {
    snippets.push(...extractSnippets(readFileSync(join(repoRoot, readme), "utf8"), readme));
  }
  snippets.push(...extractSnippets(canaryMarkdown, CANARY));
  result = checkSnippets(snippets, {
    repoRoot,
    preludeDir: join(packageDir, "prelude"),
    outDir: join(packageDir, ".snippets"),
  });
}, 120_000);

describe("extractSnippets", () => {
  it("reads ts blocks at their fence line, unindented, with the skip marker", () => {
    expect(extractSnippets(canaryMarkdown, CANARY)).toEqual([
      {
        readme: CANARY,
        fenceLine: 3,
        code: 'import { Recall } from "@fastrag/bench-metrics/retrieval";\n\nnew Recall({ kk: 5 });',
        skipped: false,
      },
      {
        readme: CANARY,
        fenceLine: 11,
        code: 'const loaded = await QADataset.load("eval.json");\nloaded.sampels;',
        skipped: false,
      },
      {
        readme: CANARY,
        fenceLine: 16,
        code: "this block is not TypeScript and is never compiled",
        skipped: true,
      },
    ]);
  });

  it("ignores other languages, and ts inside a longer fence", () => {
    const md =
      "```sh\nnpm i\n```\n````md\n```ts\nnot a block\n```\n````\n~~~typescript\nlet x = 1;\n~~~\n";
    expect(extractSnippets(md, "x.md")).toEqual([
      { readme: "x.md", fenceLine: 9, code: "let x = 1;", skipped: false },
    ]);
  });
});

describe("the check", () => {
  it("reports a wrong option and a wrong member at their README lines", () => {
    const errors = result.reports
      .filter((r) => r.snippet.readme === CANARY)
      .flatMap((r) => r.errors);
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(/^<canary>\.md:6:\d+ TS2353: .*'kk' does not exist in type/);
    expect(errors[1]).toMatch(
      /^<canary>\.md:13:\d+ TS2551: Property 'sampels' does not exist on type 'QADataset<Metadata>'\. Did you mean 'samples'\?/,
    );
    // The skipped block was never compiled (another README may well have a block at line 16).
    expect(
      result.reports.some((r) => r.snippet.readme === CANARY && r.snippet.fenceLine === 16),
    ).toBe(false);
  });

  it("finds no error in the prelude, the compiler options or the packages' types", () => {
    expect(result.otherErrors.join("\n\n")).toBe("");
  });
});

describe.each(readmes)("%s", (readme) => {
  it("has ts blocks, and every one compiles against the built packages", () => {
    const reports = result.reports.filter((r) => r.snippet.readme === readme);
    expect(reports.length).toBeGreaterThan(0);
    const errors = reports.flatMap((r) => r.errors);
    // One message per error: README path, line and column, the compiler's message, the line.
    expect(errors.join("\n\n")).toBe("");
  });
});
