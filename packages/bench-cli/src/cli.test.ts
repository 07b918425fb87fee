import { spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { bin, cli, demoResults } from "./__fixtures__/cli-process.js";
import { memoryIo } from "./__fixtures__/in-process.js";
import { trec } from "./__fixtures__/trec-eval.js";

// End-to-end: these tests start the built binary as a child process, as a user or CI would.

/** Holds the demo results (see `runDemoConfigs`) in `results/`, read by the tests below. */
let dir: string;
beforeAll(async () => {
  ({ dir } = await demoResults());
}, 120_000);

describe("output into a pipe", () => {
  it("ends quietly, with its own exit code, when the reader stops early (| head)", async () => {
    // Enough per-query lines (about 0.5 MB) to overflow the pipe after the reader has gone.
    const qrels: string[] = [];
    const run: string[] = [];
    for (let q = 0; q < 20_000; q++) {
      qrels.push(`q${q} 0 d${q} 1`);
      run.push(`q${q} Q0 d${q} 1 1.0 t`);
    }
    await writeFile(join(dir, "pipe.qrels"), `${qrels.join("\n")}\n`);
    await writeFile(join(dir, "pipe.run"), `${run.join("\n")}\n`);
    const child = spawn(
      process.execPath,
      [
        bin,
        "eval",
        "--qrels",
        join(dir, "pipe.qrels"),
        "--run",
        join(dir, "pipe.run"),
        "--per-query",
      ],
      { env: { ...process.env, NO_COLOR: "1" }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    let first = "";
    child.stdout.once("data", (chunk) => {
      first = String(chunk);
      child.stdout.destroy(); // what `head -1` does once it has its line
    });
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    // trec_eval's per-query counts come first (each query has 1 document, relevant and retrieved).
    expect(first).toMatch(
      /^num_ret\tq0\t1\nnum_rel\tq0\t1\nnum_rel_ret\tq0\t1\nmap\tq0\t1\.0000\n/,
    );
    expect(stderr).not.toMatch(/EPIPE|\n\s+at /);
    expect(code).toBe(0);
  });
});

describe("usage", () => {
  it("prints help for every command and exits 0", () => {
    for (const cmd of ["run", "rescore", "compare", "diff", "check", "eval", "merge"]) {
      const r = cli([cmd, "--help"]);
      expect(r.code, cmd).toBe(0);
      expect(r.stdout).toContain(`Usage: fastrag-bench ${cmd}`);
    }
    expect(cli(["--help"]).stdout).toMatch(/Commands:[\s\S]*eval/);
  });

  it("exits 2 for unknown commands, missing arguments and bad flags", () => {
    expect(cli(["frobnicate"]).code).toBe(2);
    expect(cli(["check"]).code).toBe(2);
    expect(cli([]).code).toBe(2);
    const r = cli(["compare", "x.json", "--format", "pdf"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/pdf/);
  });
});

describe("main() in-process", () => {
  it("reads and writes relative paths in main()'s cwd, not the process's", async () => {
    const { main } = await import("./cli.js");
    const { io, out, err, clear } = memoryIo(dir);
    expect(process.cwd()).not.toBe(dir);
    expect(await main(["check", "results/weak.json", "--min", "recall@3=0.5"], io), err()).toBe(0);
    expect(out()).toContain("✓ weak: all 1 bound(s) hold");
    const diffArgs = ["diff", "results/weak.json", "results/strong.json", "--metric", "mrr"];
    expect(await main(diffArgs, io), err()).toBe(0);
    expect(out()).toContain("mrr: weak → strong (paired by sample_id)");
    const compareArgs = ["compare", "results/weak.json", "results/strong.json", "--out", "cwd.md"];
    expect(await main(compareArgs, io), err()).toBe(0);
    expect(await readFile(join(dir, "cwd.md"), "utf8")).toMatch(/^\| # \| run \| recall@3 /);
    const [qrels, run] = ["qrels.test", "results.test"].map((f) => relative(dir, join(trec, f)));
    clear();
    expect(
      await main(["eval", "--qrels", qrels as string, "--run", run as string, "-m", "map"], io),
      err(),
    ).toBe(0);
    // out.test's counts, then the measure.
    expect(out()).toMatch(
      /^num_q\tall\t3\nnum_ret\tall\t1500\nnum_rel\tall\t561\nnum_rel_ret\tall\t131\nmap\tall\t0\.\d{4}\n$/,
    );
  });
});
