import { existsSync } from "node:fs";
import { copyFile, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cli, demoResults } from "../__fixtures__/cli-process.js";

// End-to-end: these tests start the built binary as a child process, as a user or CI would.

let dir: string;
/** The demo results (see `runDemoConfigs`), read by the tests below. */
let out: string;
beforeAll(async () => {
  ({ dir, out } = await demoResults());
}, 120_000);

describe("fastrag-bench compare", () => {
  // Ten processes of the CLI, one after another: slow on a loaded 2-core host.
  it("compares result files in every format", () => {
    const files = [join(out, "weak.json"), join(out, "strong.json")];
    const md = cli(["compare", ...files]);
    expect(md.code).toBe(0);
    expect(md.stdout).toContain("| ");
    const p95 = cli(["compare", ...files, "--stat", "p95"]);
    expect(p95.stdout).toContain("latency_ms p95");
    const tested = cli(["compare", ...files, "--stat", "p95", "--test", "t-test"]);
    expect(tested.code).toBe(2);
    expect(tested.stderr).toMatch(/^error: --test t-test with --stat p95: .*--test none\n/);
    const csv = cli(["compare", ...files, "--format", "csv", "--test", "none"]);
    expect(csv.stdout.split("\n")[0]).toMatch(/recall@3/);
    const json = cli(["compare", join(out, "[ws]*.json"), "--format", "json", "--test", "t-test"]);
    expect(json.code).toBe(0);
    expect(() => JSON.parse(json.stdout)).not.toThrow();
    const report = join(dir, "report.html");
    const html = cli([
      "compare",
      ...files,
      "--format",
      "html",
      "--out",
      report,
      "--diff-metric",
      "mrr",
      "--title",
      "CLI <report>",
    ]);
    expect(html.code, html.stderr).toBe(0);
    return readFile(report, "utf8").then((text) => {
      expect(text.toLowerCase()).toMatch(/^<!doctype html>/);
      expect(text).toContain("CLI &lt;report&gt;");
      expect(text).not.toMatch(/(src|href)="https?:/);
      // Runs over different datasets refuse to pair, loudly.
      const mixed = cli(["compare", join(out, "*.json")]);
      expect(mixed.code).toBe(2);
      expect(mixed.stderr).toMatch(
        /\nerror: cannot pair runs .*For a table without significance tests: --test none\n/,
      );
      // With no test nothing pairs them: the table comes, with a warning.
      const untested = cli(["compare", join(out, "*.json"), "--test", "none"]);
      expect(untested.code).toBe(0);
      expect(untested.stderr).toMatch(/^warning: cannot pair runs .*not over one dataset\n/m);
      // flaky errored on 1 of its 10 samples, which its means leave out: said beside the table.
      expect(untested.stderr).toMatch(
        /^warning: 1 of 10 samples of "flaky" errored; its means leave them out \(a failure is never scored as 0\)$/m,
      );
      expect(untested.stderr.trim().split("\n")).toHaveLength(2);
      const none = cli(["compare", join(dir, "nothing-*.json")]);
      expect(none.code).toBe(2);
      expect(none.stderr).toMatch(/no file matches/);
      // A directory (`compare results`): its files are meant, and the error says how to give them.
      const folder = cli(["compare", `${out}/`]);
      expect(folder.code).toBe(2);
      expect(folder.stderr).toContain(
        `error: "${out}/" is a directory; give its result files, e.g. '${out}/*.json'\n`,
      );
    });
  }, 120_000);

  it("takes --baseline as a run name, or as a result file when two runs share a name", async () => {
    const weak = join(out, "weak.json");
    const strong = join(out, "strong.json");
    const again = join(dir, "seed2");
    await mkdir(again, { recursive: true });
    await copyFile(weak, join(again, "weak.json"));
    const files = [weak, strong, join(again, "weak.json")];
    const byName = cli(["compare", weak, strong, "--baseline", "strong", "--format", "json"]);
    expect(byName.code, byName.stderr).toBe(0);
    expect(JSON.parse(byName.stdout).significance.baseline).toBe("strong");
    const ambiguous = cli(["compare", ...files, "--baseline", "weak"]);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toMatch(
      /^error: --baseline "weak": 2 runs have that name \(.*weak\.json, .*weak\.json\); pass the baseline's result file instead\n/,
    );
    const byFile = cli(["compare", ...files, "--baseline", strong, "--format", "json"]);
    expect(byFile.code, byFile.stderr).toBe(0);
    expect(JSON.parse(byFile.stdout).significance.baseline).toBe("strong");
    const unknown = cli(["compare", ...files, "--baseline", "nope"]);
    expect(unknown.code).toBe(2);
    // In the order the files were given (issue 34), not by path.
    expect(unknown.stderr).toMatch(/no run named "nope"; runs are "weak", "strong", "weak"/);
  });

  it("takes an existing file literally, even when its name reads as a glob", async () => {
    const weak = join(out, "weak.json");
    const strong = join(out, "strong.json");
    const odd = join(dir, "odd");
    await mkdir(odd, { recursive: true });
    await copyFile(weak, join(odd, "bm25 (k1=1.2).json"));
    await copyFile(weak, join(odd, "run[1].json"));
    await copyFile(strong, join(odd, "run1.json"));
    const parens = cli(["compare", join(odd, "bm25 (k1=1.2).json"), "--test", "none"]);
    expect(parens.code, parens.stderr).toBe(0);
    // As a glob, run[1].json would match run1.json (the strong run) instead.
    const brackets = cli([
      "compare",
      join(odd, "run[1].json"),
      "--test",
      "none",
      "--format",
      "json",
    ]);
    expect(brackets.code, brackets.stderr).toBe(0);
    expect(JSON.parse(brackets.stdout).runs.map((r: { name: string }) => r.name)).toEqual(["weak"]);
  });

  it("reports an --out it cannot write in one line, exit 2", async () => {
    const files = [join(out, "weak.json"), join(out, "strong.json")];
    const blocked = join(dir, "a-file");
    await writeFile(blocked, "");
    for (const [args, reason] of [
      [["compare", ...files, "--out", join(blocked, "x.md")], "a parent of it is a file"],
      [["compare", ...files, "--out", dir], "it is a directory"],
    ] as const) {
      const r = cli([...args]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`cannot write the file: ${reason}`);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });
});

describe("names from result files on the terminal, and --out's format", () => {
  /** A run name that would clear and recolour a terminal, then break a line into HTML. */
  const EVIL = "\u001b[2J\u001b[31mpwned\u009b1m\n<img src=x onerror=alert(1)>";
  let files: { base: string; evil: string };

  /**
   * Saves a result of 4 samples scoring `scores` on `metric` ("error" errors a sample). The second
   * sample's id would hide the rest of its line on a terminal.
   */
  async function saveRun(
    path: string,
    name: string,
    metric: string,
    scores: readonly (number | "error")[],
  ): Promise<string> {
    const sampleIds = ["q1", "q2\u001b[8m", "q3", "q4"];
    const { BenchmarkResult } = await import("@fastrag/bench-core");
    const samples = scores.map((s, i) => ({
      sampleId: sampleIds[i] as string,
      question: `question ${i + 1}?`,
      status: s === "error" ? ("errored" as const) : ("successful" as const),
      scores: { [metric]: s === "error" ? null : s },
      answer: s === "error" ? null : `answer ${i + 1}`,
      retrievedIds: [],
      retrievedUris: [],
      latencyMs: s === "error" ? null : 10,
      error: s === "error" ? "boom \u001b]0;owned\u0007 \u202eexe.txt" : null,
    }));
    await new BenchmarkResult({
      name,
      createdAt: new Date("2026-01-01T00:00:00Z"),
      durationS: 1,
      samples,
      higherIsBetter: { [metric]: true },
    }).save(path);
    return path;
  }

  beforeAll(async () => {
    const at = join(dir, "escaping");
    await mkdir(at, { recursive: true });
    files = {
      base: await saveRun(join(at, "base.json"), "base", "recall@5", [1, 1, 1, 1]),
      evil: await saveRun(join(at, "evil.json"), EVIL, "recall@5", [0, 0, 1, "error"]),
    };
  });

  it("compare escapes control characters and HTML in run names, on stdout and stderr", () => {
    const r = cli(["compare", files.base, files.evil, "--test", "none"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      [
        "| run | errored | incomplete | recall@5 |",
        "| --- | ---: | ---: | ---: |",
        "| base | 0 | 0 | 1.0000 |",
        "| \\u001b[2J\\u001b[31mpwned\\u009b1m &lt;img src=x onerror=alert(1)&gt; | 1 | 0 | 0.3333 |",
        "",
        'Each metric is compared on the samples every run scored (recall@5 on 3), so a run is not ranked on only the samples it did not fail; each run\'s own all-samples statistic is available with samples "all" (`--samples all`).',
        "",
      ].join("\n"),
    );
    expect(r.stderr).toBe(
      'warning: 1 of 4 samples of "\\u001b[2J\\u001b[31mpwned\\u009b1m\\n<img src=x onerror=alert(1)>" errored; every run is compared on the samples all runs scored (a failure is never scored as 0)\n',
    );
    const json = cli(["compare", files.base, files.evil, "--test", "none", "--format", "json"]);
    expect(json.code, json.stderr).toBe(0);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test is about control characters.
    expect(json.stdout).not.toMatch(/[\u001b\u009b]/);
    expect(JSON.parse(json.stdout).runs[1].name).toBe(EVIL);
    // An error naming the runs (here: a baseline no run has) is escaped too.
    const unknown = cli(["compare", files.base, files.evil, "--baseline", "nope"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      'no run named "nope"; runs are "base", "\\u001b[2J\\u001b[31mpwned\\u009b1m',
    );
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test is about control characters.
    expect(unknown.stderr).not.toMatch(/[\u001b\u009b]/);
  });

  it("compare keeps a CSV's bytes in a pipe, and escapes them on a terminal", async () => {
    const piped = cli(["compare", files.base, files.evil, "--test", "none", "--format", "csv"]);
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout).toContain(`"${EVIL}",1,0,0.3333333333333333\r\n`);
    // In process, with a stdout that says it is a terminal.
    const { main } = await import("../cli.js");
    let stdout = "";
    const code = await main(
      ["compare", files.base, files.evil, "--test", "none", "--format", "csv"],
      {
        stdout: { write: (s: string) => (stdout += s), isTTY: true },
        stderr: { write: () => true },
        env: { NO_COLOR: "1" },
        cwd: dir,
      },
    );
    expect(code).toBe(0);
    expect(stdout).toBe(
      'run,errored,incomplete,recall@5\r\nbase,0,0,1\r\n"\\u001b[2J\\u001b[31mpwned\\u009b1m\n<img src=x onerror=alert(1)>",1,0,0.3333333333333333\r\n',
    );
  });

  it("diff and check escape run names, sample ids and error messages", () => {
    const d = cli(["diff", files.base, files.evil, "--metric", "recall@5"]);
    expect(d.code, d.stderr).toBe(0);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test is about control characters.
    expect(d.stdout).not.toMatch(/[\u001b\u009b\u202e]/);
    expect(d.stdout.split("\n")[0]).toBe(
      "recall@5: base → \\u001b[2J\\u001b[31mpwned\\u009b1m\\n<img src=x onerror=alert(1)> (paired by sample_id)",
    );
    expect(d.stdout).toContain("  q2\\u001b[8m: 1 → 0 (-1)");
    expect(d.stdout).toContain("  q4: 1 → —  boom \\u001b]0;owned\\u0007 \\u202eexe.txt");
    const dj = cli(["diff", files.base, files.evil, "--metric", "recall@5", "--json"]);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test is about control characters.
    expect(dj.stdout).not.toMatch(/[\u001b\u009b\u202e]/);
    const parsed = JSON.parse(dj.stdout);
    expect(parsed.candidate).toBe(EVIL);
    expect(parsed.regressed.map((x: { sample_id: string }) => x.sample_id)).toEqual([
      "q1",
      "q2\u001b[8m",
    ]);
    const c = cli(["check", files.evil, "--min", "recall@5=0.5"]);
    expect(c.code).toBe(1);
    expect(c.stdout.split("\n")[0]).toBe(
      "✗ \\u001b[2J\\u001b[31mpwned\\u009b1m\\n<img src=x onerror=alert(1)>: 1 of 1 bound(s) failed",
    );
    expect(c.stderr).toContain('of "\\u001b[2J\\u001b[31mpwned\\u009b1m\\n<img');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test is about control characters.
    expect(`${c.stdout}${c.stderr}`).not.toMatch(/[\u001b\u009b]/);
    const cj = cli(["check", files.evil, "--min", "recall@5=0.5", "--json"]);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test is about control characters.
    expect(cj.stdout).not.toMatch(/[\u001b\u009b]/);
    expect(JSON.parse(cj.stdout).run).toBe(EVIL);
  });

  it("compare --out picks the format from the file's extension", async () => {
    const pair = [files.base, files.evil, "--test", "none"];
    const cases: [string, (text: string) => void][] = [
      ["report.html", (t) => expect(t.toLowerCase()).toMatch(/^<!doctype html>\n/)],
      ["report.HTM", (t) => expect(t.toLowerCase()).toMatch(/^<!doctype html>\n/)],
      [
        "table.csv",
        (t) => expect(t.startsWith("run,errored,incomplete,recall@5\r\nbase,0,0,1\r\n")).toBe(true),
      ],
      ["table.json", (t) => expect(JSON.parse(t).format).toBe("fastrag-bench-comparison/1")],
      [
        "table.markdown",
        (t) => expect(t.startsWith("| run | errored | incomplete | recall@5 |\n")).toBe(true),
      ],
      [
        "table.md",
        (t) => expect(t.startsWith("| run | errored | incomplete | recall@5 |\n")).toBe(true),
      ],
      // An extension that names no format keeps the default, markdown.
      [
        "table.txt",
        (t) => expect(t.startsWith("| run | errored | incomplete | recall@5 |\n")).toBe(true),
      ],
    ];
    for (const [name, expectText] of cases) {
      const path = join(dir, "escaping", name);
      const r = cli(["compare", ...pair, "--out", path]);
      expect(r.code, `${name}: ${r.stderr}`).toBe(0);
      expectText(await readFile(path, "utf8"));
    }
    // A --format that agrees with the extension, or with none, is taken.
    const htm = join(dir, "escaping", "agree.htm");
    expect(cli(["compare", ...pair, "--format", "html", "--out", htm]).code).toBe(0);
    expect((await readFile(htm, "utf8")).toLowerCase()).toMatch(/^<!doctype html>/);
    const txt = join(dir, "escaping", "data.txt");
    expect(cli(["compare", ...pair, "--format", "csv", "--out", txt]).code).toBe(0);
    expect(await readFile(txt, "utf8")).toMatch(/^run,errored,incomplete,recall@5\r\n/);
  });

  it("compare warns about errored samples run by run up to 5 runs, then in one line", async () => {
    const at = join(dir, "escaping", "many");
    await mkdir(at, { recursive: true });
    const paths: string[] = [];
    // Seven runs: the first without errors, the others with 1, 1, 2, 1, 3 and 1 errored samples.
    const errors = [0, 1, 1, 2, 1, 3, 1];
    for (let r = 0; r < errors.length; r++) {
      const scores: (number | "error")[] = [1, 1, 1, 1];
      for (let k = 0; k < (errors[r] as number); k++) scores[k] = "error";
      paths.push(await saveRun(join(at, `run-${r}.json`), `run-${r}`, "recall@5", scores));
    }
    const many = cli(["compare", ...paths, "--test", "none"]);
    expect(many.code, many.stderr).toBe(0);
    expect(many.stderr).toBe(
      'warning: 6 of 7 runs have errored samples (1–3 each; the most: "run-5" 3 of 4, "run-3" 2 of 4, "run-1" 1 of 4); every run is compared on the samples all runs scored (a failure is never scored as 0)\n',
    );
    const all = cli(["compare", ...paths, "--test", "none", "--samples", "all"]);
    expect(all.stderr).toMatch(
      /^warning: 6 of 7 runs have errored samples .*; their means leave them out/,
    );
    // Five runs with errors (and the clean one): a line each, as before.
    const few = cli(["compare", ...paths.slice(0, 6), "--test", "none"]);
    expect(few.stderr.trim().split("\n")).toEqual(
      [1, 2, 3, 4, 5].map(
        (r) =>
          `warning: ${errors[r]} of 4 samples of "run-${r}" errored; every run is compared on the samples all runs scored (a failure is never scored as 0)`,
      ),
    );
  });

  it("compare refuses a --format that contradicts --out's extension, writing nothing", () => {
    const path = join(dir, "escaping", "contradiction.html");
    const r = cli(["compare", files.base, files.evil, "--format", "md", "--out", path]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `error: --format md does not match --out "${path}" (a .html file): drop --format to write html, or give --out a .md name\nrun \`fastrag-bench compare --help\` for usage\n`,
    );
    expect(existsSync(path)).toBe(false);
    const help = cli(["compare", "--help"]);
    expect(help.stdout).toMatch(/--format <format> +output format \(default: from --out's/);
  });
});
