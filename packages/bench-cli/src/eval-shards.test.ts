import { spawnSync } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Benchmark } from "@fastrag/bench-core";
import { QADataset, TrecRun } from "@fastrag/bench-datasets";
import { beforeAll, describe, expect, it } from "vitest";
import { retrievalMetric } from "./internal/metric-spec.js";

// The built modules, as the binary runs them: the worker script sits next to them in dist/ (from
// the sources there is no worker to start, and startShards says so).
const { evalSharded, shardOf } = (await import(
  new URL("../dist/internal/eval-shards.js", import.meta.url).href
)) as typeof import("./internal/eval-shards.js");
const { allReplies, startShards } = (await import(
  new URL("../dist/internal/eval-spawn.js", import.meta.url).href
)) as typeof import("./internal/eval-spawn.js");

/** Shards 1 … count-1 on workers; fails the test where they cannot start. */
function workers(input: Parameters<typeof startShards>[0], count: number) {
  const started = startShards(input, count);
  if (started === undefined) throw new Error("no worker script in dist/: run the build first");
  return started;
}

const bin = fileURLToPath(new URL("../dist/bin.js", import.meta.url));
const SPECS = ["map", "mrr", "ndcg@10", "recall@5", "precision@10", "r_precision"];

let dir: string;
let qrels: string;
let run: string;
let seed = 11;
const rand = () => {
  seed = (seed * 1664525 + 1013904223) >>> 0;
  return seed / 2 ** 32;
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "fastrag-eval-shards-"));
  // 300 judged queries, their lines in two passes (not contiguous); q7 has no relevant document,
  // q8 is missing from the run, and the run holds a query the qrels do not judge.
  const qrelLines: string[] = [];
  const runLines: string[] = [];
  for (const pass of [0, 1]) {
    for (let q = 0; q < 300; q++) {
      for (let j = 0; j < 4; j++) {
        const grade = q === 7 ? 0 : Math.floor(rand() * 4) - 1;
        qrelLines.push(`q${q} 0 d${pass}-${j}-${q % 9} ${grade}`);
      }
    }
  }
  for (let q = 0; q < 301; q++) {
    if (q === 8) continue;
    for (let d = 0; d < 12; d++) {
      const doc = `d${Math.floor(rand() * 2)}-${Math.floor(rand() * 6)}-${q % 9}`;
      runLines.push(`q${q} Q0 ${doc}x${d} ${d + 1} ${(rand() * 3).toFixed(1)} shards`);
      if (d % 3 === 0) runLines.push(`q${q} Q0 ${doc} ${d + 1} ${(rand() * 3).toFixed(1)} shards`);
    }
  }
  qrels = join(dir, "qrels.txt");
  run = join(dir, "run.txt");
  await writeFile(qrels, `${qrelLines.join("\n")}\n`);
  await writeFile(run, `${dedupe(runLines).join("\n")}\n`);
});

/** One line per (query, document): a run listing a document twice is refused. */
function dedupe(lines: string[]): string[] {
  const seen = new Set<string>();
  return lines.filter((l) => {
    const [q, , d] = l.split(" ");
    const key = `${q} ${d}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The whole evaluation on this thread, through Benchmark directly. */
async function whole(relevanceLevel?: number) {
  const metrics = SPECS.map(retrievalMetric);
  const dataset = await QADataset.fromTrec({
    qrels,
    ...(relevanceLevel !== undefined ? { relevanceLevel } : {}),
  });
  const result = await new Benchmark({ dataset, metrics }).run(await TrecRun.load(run), {
    name: "whole",
  });
  return {
    ids: result.samples.map((s) => s.sampleId),
    errored: result.samples.map((s) => s.status === "errored"),
    scores: metrics.map((m) => result.samples.map((s) => s.scores[m.name] ?? null)),
  };
}

describe("shardOf", () => {
  it("puts every id in one shard of range, about evenly", () => {
    for (const count of [2, 3, 7]) {
      const sizes = new Array<number>(count).fill(0);
      for (let i = 0; i < 30_000; i++) {
        const k = shardOf(String(i), count);
        expect(Number.isInteger(k) && k >= 0 && k < count).toBe(true);
        sizes[k] = (sizes[k] as number) + 1;
      }
      for (const size of sizes)
        expect(Math.abs(size - 30_000 / count)).toBeLessThan(30_000 / count / 20);
    }
    expect(shardOf("q1", 2)).toBe(shardOf("q1", 2));
  });
});

describe("allReplies", () => {
  const ok = (n: number) => ({
    ok: true as const,
    statuses: new Uint8Array(n),
    scores: [new Float64Array(n)],
    missing: 0,
  });

  it("gives every reply in shard order, whatever order they come in", async () => {
    let second: (m: ReturnType<typeof ok>) => void = () => {};
    const late = new Promise<ReturnType<typeof ok>>((resolve) => {
      second = resolve;
    });
    const all = allReplies([late, Promise.resolve(ok(3))]);
    second(ok(1));
    const replies = await all;
    expect(replies?.map((r) => r.statuses.length)).toEqual([1, 3]);
    expect(await allReplies([])).toEqual([]);
  });

  it("gives up at the first failed reply, without waiting for a shard still running", async () => {
    const never = new Promise<ReturnType<typeof ok>>(() => {});
    const failed = Promise.resolve({ ok: false as const, message: "bad line" });
    expect(await allReplies([never, failed])).toBeUndefined();
  });
});

describe("evalSharded", () => {
  it("scores every query as the whole evaluation does, in the qrels' order", async () => {
    const expected = await whole();
    expect(expected.ids).toHaveLength(300);
    const metrics = SPECS.map(retrievalMetric);
    for (const count of [2, 3]) {
      const input = { qrels, run, relevanceLevel: undefined, metrics: SPECS };
      const sharded = await evalSharded(input, metrics, workers(input, count));
      expect(sharded, `${count} shards`).toBeDefined();
      expect(sharded?.ids).toEqual(expected.ids);
      expect(sharded?.errored).toEqual(expected.errored);
      expect(sharded?.scores).toEqual(expected.scores);
    }
    // The cases the data was made for are there to be compared.
    const q7 = expected.ids.indexOf("q7");
    expect(expected.scores.every((column) => column[q7] === null)).toBe(true);
    expect(expected.scores[0]?.[expected.ids.indexOf("q8")]).toBe(0);
  });

  it("starts no worker where the worker script is not there, as when run from the sources", async () => {
    const fromSources = await import("./internal/eval-spawn.js");
    const input = { qrels, run, relevanceLevel: undefined, metrics: SPECS };
    expect(fromSources.startShards(input, 2)).toBeUndefined();
  });

  it("applies a relevance level in every shard", async () => {
    const expected = await whole(2);
    const input = { qrels, run, relevanceLevel: 2, metrics: SPECS };
    const sharded = await evalSharded(input, SPECS.map(retrievalMetric), workers(input, 2));
    expect(sharded?.scores).toEqual(expected.scores);
  });

  it("gives up (undefined) when a worker's shard fails, so the caller reports the error", async () => {
    // A malformed line in a query that a worker, not this thread, reads.
    const theirs = ["q0", "q1", "q2", "q3", "q4", "q5"].find((q) => shardOf(q, 2) === 1) as string;
    const bad = join(dir, "bad.run");
    await writeFile(bad, `q0 Q0 a 1 1 t\n${theirs} Q0 b 1 high t\n`);
    const input = { qrels, run: bad, relevanceLevel: undefined, metrics: SPECS };
    expect(await evalSharded(input, SPECS.map(retrievalMetric), workers(input, 2))).toBeUndefined();
    const one = spawnSync(
      process.execPath,
      [bin, "eval", "--qrels", qrels, "--run", bad, "--threads", "1"],
      {
        encoding: "utf8",
      },
    );
    const two = spawnSync(
      process.execPath,
      [bin, "eval", "--qrels", qrels, "--run", bad, "--threads", "2"],
      {
        encoding: "utf8",
      },
    );
    expect(one.status).toBe(2);
    expect(one.stderr).toMatch(/bad\.run: line 2, column 5 \(score\)/);
    expect(two.status).toBe(2);
    expect(two.stderr).toBe(one.stderr);
  });
});

describe("fastrag-bench eval --threads", () => {
  const evalArgs = (threads: string, ...more: string[]) => [
    bin,
    "eval",
    "--qrels",
    qrels,
    "--run",
    run,
    "--threads",
    threads,
    ...more,
  ];

  it("prints the same output on one, two or three threads", () => {
    for (const more of [["--per-query"], ["--per-query", "--json"], ["-m", "P_5", "-l", "2"]]) {
      const outputs = ["1", "2", "3"].map((t) =>
        spawnSync(process.execPath, evalArgs(t, ...more), { encoding: "utf8" }),
      );
      for (const o of outputs) expect(o.status).toBe(0);
      expect(outputs[0]?.stdout).toMatch(
        more.includes("--json") ? /"all": 0\.\d/ : /\tall\t0\.\d{4}\n/,
      );
      expect(outputs[1]?.stdout).toBe(outputs[0]?.stdout);
      expect(outputs[2]?.stdout).toBe(outputs[0]?.stdout);
      expect(outputs[1]?.stderr).toBe(outputs[0]?.stderr);
    }
  });

  it("reads a piped run on one thread, whatever --threads says", () => {
    // A shell pipe, as in `--run <(zcat run.gz)`: it can be read only once.
    const piped = (threads: string) =>
      spawnSync(
        "sh",
        [
          "-c",
          'cat "$1" | "$2" "$3" eval --qrels "$4" --run /dev/stdin --per-query --threads "$5"',
          "sh",
          run,
          process.execPath,
          bin,
          qrels,
          threads,
        ],
        { encoding: "utf8" },
      );
    const file = spawnSync(process.execPath, evalArgs("1", "--per-query"), { encoding: "utf8" });
    for (const threads of ["1", "3"]) {
      const r = piped(threads);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toBe(file.stdout);
    }
  });

  it("refuses a thread count that is not a whole number from 1 to 64", () => {
    for (const bad of ["0", "1.5", "x", "65"]) {
      const r = spawnSync(process.execPath, evalArgs(bad), { encoding: "utf8" });
      expect(r.status, bad).toBe(2);
      expect(r.stderr).toMatch(/--threads .*expected a whole number from 1 to 64/);
    }
  });
});
