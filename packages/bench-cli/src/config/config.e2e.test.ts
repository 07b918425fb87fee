import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cli, fixtures, scratchDir } from "../__fixtures__/cli-process.js";

// End-to-end: these tests start the built binary as a child process, as a user or CI would.

let dir: string;
beforeAll(async () => {
  dir = await scratchDir();
});

/** `run` of a fixture config into `<dir>/<out>`, with `flags`. */
const runFixture = (config: string, out: string, ...flags: string[]) =>
  cli(["run", join(fixtures, config), ...flags, "--out-dir", join(dir, out)]);

describe("a config loaded and checked by run", () => {
  it("refuses an empty target name before any target runs", async () => {
    const to = join(dir, "empty-name");
    const calls = join(dir, "empty-name-calls.txt");
    const r = cli(["run", join(fixtures, "empty-name.config.mjs"), "--out-dir", to], {
      FASTRAG_TEST_CALLS: calls,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/a target has an empty name \(" "\)/);
    expect(existsSync(calls)).toBe(false);
    expect(existsSync(join(to, "ok.json"))).toBe(false);
  });

  it("runs a TypeScript config that exports `config` rather than a default", () => {
    const to = join(dir, "named");
    const r = cli(["run", join(fixtures, "named-export.config.ts"), "--out-dir", to]);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(to, "named.json"))).toBe(true);
  });

  it("warns of a misspelled config key, and refuses targets given as an array", () => {
    const typo = runFixture("typo-key.config.mjs", "typo");
    expect(typo.code, typo.stderr).toBe(0);
    expect(typo.stderr).toMatch(
      /^warning: .*typo-key\.config\.mjs: config key "maxConcurent" is not one run reads, so it is ignored; the keys are dataset, metrics, targets, maxConcurrent, outDir, timeoutMs, cache, keepChunkText, retries, rateLimit, trials, warmup$/m,
    );
    const array = runFixture("array-targets.config.mjs", "arr");
    expect(array.code).toBe(2);
    expect(array.stderr).toMatch(/targets must be an object of name → target/);
    expect(existsSync(join(dir, "arr"))).toBe(false);
  });

  it("says where a JavaScript config, or a module it imports, does not parse", async () => {
    const own = join(dir, "syntax.config.mjs");
    await writeFile(own, "const a = 1;\nconst b = ;\nexport default {};\n");
    const lib = join(dir, "syntax-lib.mjs");
    await writeFile(lib, "export const x = ;\n");
    const importer = join(dir, "imports-syntax.config.mjs");
    await writeFile(importer, 'import { x } from "./syntax-lib.mjs";\nexport default { x };\n');
    const cjs = join(dir, "syntax.config.cjs");
    await writeFile(cjs, "module.exports = {\n  a: ,\n};\n");
    // A config that parses and imports a broken module from its top-level code: that code must
    // not run a second time to find the place (it may call paid APIs). Here it counts its runs.
    const runs = join(dir, "top-level-runs.txt");
    const dynamic = join(dir, "dynamic-syntax.config.mjs");
    await writeFile(
      dynamic,
      `import { appendFileSync } from "node:fs";\nappendFileSync(${JSON.stringify(runs)}, "run\\n");\nawait import("./syntax-lib.mjs");\nexport default {};\n`,
    );
    const bang = join(dir, "bang-syntax.config.mjs");
    await writeFile(bang, "#!/usr/bin/env node\nexport const x = ;\n");
    const first = join(dir, "first-line-syntax.config.mjs");
    await writeFile(first, "export const y = ;\n");
    for (const [config, where] of [
      [own, `${own}:2:11`],
      [importer, `${lib}:1:18`],
      [cjs, `${cjs}:2:6`],
      [bang, `${bang}:2:18`],
      [first, `${first}:1:18`],
    ] as const) {
      const r = cli(["run", config]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        `error: ${config}: could not load the config: ${where}: SyntaxError: Unexpected token`,
      );
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    const r = cli(["run", dynamic]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `error: ${dynamic}: could not load the config: SyntaxError: Unexpected token`,
    );
    expect(await readFile(runs, "utf8")).toBe("run\n");
  });

  it("checks every target before the first one runs", () => {
    const to = join(dir, "mixed");
    const r = cli(["run", join(fixtures, "mixed.config.mjs"), "--out-dir", to]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/target "ret" is a Retriever .*exact_match needs an answer/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    // "eng" comes first and is fine, but did not run: nothing was saved.
    expect(existsSync(join(to, "eng.json"))).toBe(false);
  });

  it("reports a config that throws while loading in one line, exit 2", () => {
    const r = cli(["run", join(fixtures, "broken.config.mjs")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /could not load the config: .*broken\.config\.mjs:\d+:\d+: OPENAI_API_KEY is not set/,
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("awaits a config exported as a promise", () => {
    const r = runFixture("async.config.mjs", "async");
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(dir, "async", "only.json"))).toBe(true);
  });

  it("refuses a config with one error, though its dataset was still loading", () => {
    const r = cli(["run", join(fixtures, "pending-dataset.config.mjs")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: .*targets must name at least one target/);
    expect(r.stderr).not.toMatch(/no-such-dataset|Unhandled|\n\s+at /);
    expect(r.stderr.trim().split("\n")).toHaveLength(2); // the error and its hint
  });

  it("refuses bad retries in a config, and a bad --rpm, naming them", () => {
    const retries = runFixture("bad-retries.config.mjs", "never2");
    expect(retries.code).toBe(2);
    expect(retries.stderr).toMatch(
      /^error: \S+bad-retries\.config\.mjs: retries\.retryOn must be a function \(error\) => boolean that marks transient errors, found none$/m,
    );
    const rpm = runFixture("ratelimit.config.mjs", "never2", "--rpm", "fast");
    expect(rpm.code).toBe(2);
    expect(rpm.stderr).toMatch(/--rpm "fast": expected a positive number per minute/);
    expect(existsSync(join(dir, "never2"))).toBe(false);
  });

  it("refuses a bad --trials and a bad config trials, naming them", () => {
    const flag = runFixture("trials.config.mjs", "never-trials", "--trials", "0");
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/--trials "0": expected a positive integer/);
    const config = runFixture("bad-trials.config.mjs", "never-trials");
    expect(config.code).toBe(2);
    expect(config.stderr).toMatch(/bad-trials\.config\.mjs: trials must be a positive integer/);
    expect(existsSync(join(dir, "never-trials"))).toBe(false);
  });

  it("refuses a config's rateLimit field that Benchmark refuses, in the config's terms", () => {
    const r = runFixture("bad-ratelimit.config.mjs", "never3");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^error: \S+bad-ratelimit\.config\.mjs: rateLimit\.requestsPerMinute must be a positive number, found the number 0$/m,
    );
    expect(existsSync(join(dir, "never3"))).toBe(false);
  });

  it("refuses a config without a dataset, or with an outDir that is no path, in one line", () => {
    for (const [name, message] of [
      ["no-dataset.config.mjs", /dataset is missing \(or a promise of undefined\)/],
      ["outdir-number.config.mjs", /outDir must be a path \(a string\), found number/],
      [
        "bad-timeoutms.config.mjs",
        /^error: \S+bad-timeoutms\.config\.mjs: timeoutMs must be a positive number of milliseconds \(at most 2147483647\), found the number -5$/m,
      ],
      [
        "bad-maxconcurrent.config.mjs",
        /^error: \S+bad-maxconcurrent\.config\.mjs: maxConcurrent must be a positive integer, found the number 2\.5$/m,
      ],
    ] as const) {
      const r = cli(["run", join(fixtures, name), "--out-dir", join(dir, "never")]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at |unexpected error/);
      // Refused before anything is made: no journal, no result folder.
      expect(existsSync(join(dir, "never"))).toBe(false);
    }
  });

  it("refuses a config that is not code or does not exist", async () => {
    await writeFile(join(dir, "bad.json"), "{}");
    expect(cli(["run", join(dir, "bad.json")]).code).toBe(2);
    expect(cli(["run", join(dir, "none.mjs")]).code).toBe(2);
  });
});
