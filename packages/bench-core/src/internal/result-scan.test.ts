import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { Benchmark } from "../benchmark.js";
import { BenchmarkResult } from "../benchmark-result.js";
import { ConfigurationError } from "../errors.js";
import { parseHeader } from "../result/decode-header.js";
import type { EvalSample, Metric, QueryEngine } from "../types.js";
import { type ScanParsers, scanResultFile } from "./result-scan.js";

let dir: string;
let path: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "fastrag-scan-"));
  path = join(dir, "trials.json");
  await (await runWithTrials()).save(path);
});

const TRIALS = 5;
const N = 40;

/**
 * A run of 40 samples × 5 trials whose trials disagree: some trials answer wrong, some throw (so
 * some samples are incomplete, one is errored in every trial), and one metric is null on a
 * quarter of the samples.
 */
async function runWithTrials(): Promise<BenchmarkResult> {
  const dataset: EvalSample[] = Array.from({ length: N }, (_, i) => ({
    id: `q${i}`,
    question: `question ${i}${i === 7 ? ' with "quotes" and é' : ""}`,
    expectedAnswers: [`answer ${i}`],
    relevantIds: ["d1"],
  }));
  const calls = new Map<string, number>();
  const engine: QueryEngine = {
    async query(_q, { sample }) {
      const id = sample.id as string;
      const k = calls.get(id) ?? 0;
      calls.set(id, k + 1);
      const n = Number(id.slice(1));
      if (n === 3 || (k * 7 + n) % 11 === 0) throw new Error(`boom ${id} call ${k}`);
      const right = (k + n) % 3 !== 0;
      return {
        answer: right ? (sample.expectedAnswers[0] as string) : "wrong",
        chunks: [{ id: "d1" }],
      };
    },
  };
  const exact: Metric = {
    name: "exact",
    higherIsBetter: true,
    needsRelevantIds: false,
    needsAnswer: true,
    score: ({ sample, answer }) => (answer === sample.expectedAnswers[0] ? 1 : 0),
  };
  const sometimes: Metric = {
    name: "len",
    higherIsBetter: false,
    needsRelevantIds: false,
    needsAnswer: true,
    score: ({ sample, answer }) =>
      Number((sample.id as string).slice(1)) % 4 === 0 ? null : (answer?.length ?? 0) / 3,
  };
  const b = new Benchmark({ dataset, metrics: [exact, sometimes], maxConcurrent: 1 });
  return b.run(engine, { name: "trials", trials: TRIALS });
}

/** Parsers like the lazy load's, counting the lines its fast path declined. */
function countingParsers(declined: { n: number }): ScanParsers<ReturnType<typeof parseHeader>> {
  return {
    header: (data) => {
      const header = parseHeader(data, path);
      return { header, metrics: Object.keys(header.higherIsBetter) };
    },
    sample: (data) => {
      declined.n++;
      const s = data as { sample_id?: string; question: string; status: "successful" };
      return { sampleId: s.sample_id, question: s.question, status: s.status, scores: {} };
    },
  };
}

interface RawTrial {
  status: string;
  scores: Record<string, number | null>;
}
interface RawSample {
  status: string;
  scores: Record<string, number | null>;
  trials?: RawTrial[];
}

/** `trial_std` from first principles: per sample, the ddof-1 standard deviation; their mean. */
function trialStdOfRaw(samples: RawSample[], metric: string): number | null {
  const stds: number[] = [];
  for (const s of samples) {
    const v = (s.trials ?? [])
      .map((t) => t.scores[metric])
      .filter((x): x is number => typeof x === "number");
    if (v.length < 2) continue;
    const mean = v.reduce((a, x) => a + x, 0) / v.length;
    stds.push(Math.sqrt(v.reduce((a, x) => a + (x - mean) ** 2, 0) / (v.length - 1)));
  }
  return stds.length === 0 ? null : stds.reduce((a, x) => a + x, 0) / stds.length;
}

describe("the lazy reader and trials", () => {
  it("reads a file with trials on its fast path, with the general parser's results", async () => {
    const raw = JSON.parse(await readFile(path, "utf8")) as { samples: RawSample[] };
    // The run gave what the test needs: trials that disagree, errored and incomplete samples.
    const statuses = new Set(raw.samples.map((s) => s.status));
    expect(statuses).toEqual(new Set(["successful", "incomplete", "errored"]));

    const declined = { n: 0 };
    const scanned = scanResultFile(path, countingParsers(declined));
    expect(scanned).toBeDefined();
    expect(declined.n).toBe(0);
    expect(Array.from(scanned?.trials?.counts ?? [])).toEqual(new Array(N).fill(TRIALS));
    for (const m of ["exact", "len"]) {
      const want = trialStdOfRaw(raw.samples, m) as number;
      expect(Math.abs((scanned?.trials?.std.get(m) as number) - want)).toBeLessThan(1e-12);
      const column = raw.samples.map((s) => (typeof s.scores[m] === "number" ? s.scores[m] : NaN));
      expect(Array.from(scanned?.columns.get(m) ?? [])).toEqual(column);
    }

    const lazy = await BenchmarkResult.load(path, { lazy: true });
    const whole = await BenchmarkResult.load(path);
    expect(lazy.trials).toBe(TRIALS);
    expect(lazy.summary).toEqual(whole.summary);
    expect(lazy.status).toEqual(whole.status);
    for (const m of ["exact", "len"]) {
      expect(Array.from(lazy.scoreColumn(m) as Float64Array)).toEqual(
        whole.samples.map((s) => (typeof s.scores[m] === "number" ? s.scores[m] : NaN)),
      );
    }
  });

  it("reads a line whose trials it declines with JSON.parse, and still counts them", async () => {
    // One trial's keys in another order: that line goes to the general parser.
    const text = await readFile(path, "utf8");
    const lines = text.split("\n");
    const at = lines.findIndex((l) => l.startsWith('{"sample_id":"q5"'));
    lines[at] = (lines[at] as string).replace(
      '"trials":[{"status":',
      '"trials":[{"attempts":1,"status":',
    );
    const edited = join(dir, "reordered.json");
    await writeFile(edited, lines.join("\n"));
    const declined = { n: 0 };
    const counting = countingParsers(declined);
    const scanned = scanResultFile(edited, {
      ...counting,
      sample: (data, where) => {
        counting.sample(data, where);
        const s = data as RawSample & { sample_id: string; question: string };
        return {
          sampleId: s.sample_id,
          question: s.question,
          status: s.status as "successful",
          scores: s.scores,
          ...(s.trials ? { trials: s.trials as never } : {}),
        };
      },
    });
    expect(declined.n).toBe(1);
    expect(Array.from(scanned?.trials?.counts ?? [])).toEqual(new Array(N).fill(TRIALS));
    const lazy = await BenchmarkResult.load(edited, { lazy: true });
    const whole = await BenchmarkResult.load(edited);
    expect(lazy.summary).toEqual(whole.summary);
  });

  /** The file with one sample line (q9's) or the header edited; both loads must refuse it alike. */
  async function refusedAlike(
    name: string,
    edit: (line: string) => string,
    header?: (text: string) => string,
  ): Promise<ConfigurationError> {
    let text = await readFile(path, "utf8");
    if (header) text = header(text);
    const lines = text.split("\n");
    const at = lines.findIndex((l) => l.startsWith('{"sample_id":"q9"'));
    lines[at] = edit(lines[at] as string);
    const edited = join(dir, `${name}.json`);
    await writeFile(edited, lines.join("\n"));
    const whole = await BenchmarkResult.load(edited).catch((e: unknown) => e);
    const lazy = await BenchmarkResult.load(edited, { lazy: true }).catch((e: unknown) => e);
    expect(ConfigurationError.isInstance(whole), String(whole)).toBe(true);
    expect(ConfigurationError.isInstance(lazy), String(lazy)).toBe(true);
    const w = whole as ConfigurationError;
    const l = lazy as ConfigurationError;
    // The whole load names the sample by index, the lazy one by index and line.
    expect(l.field?.replace(/ \(line \d+\)/, "")).toBe(w.field);
    expect(l.message.replace(/ \(line \d+\)/g, "")).toBe(w.message);
    return w;
  }

  it("refuses a sample whose score is not its trials' mean, as a whole load does", async () => {
    const e = await refusedAlike("mean", (l) =>
      l.replace(/"scores":\{"exact":[^,}]+/, '"scores":{"exact":0.123'),
    );
    expect(e.field).toBe("samples[9].scores");
  });

  it("refuses a sample whose status is not its trials', as a whole load does", async () => {
    // q9's trials all succeed (its calls never throw), so "incomplete" contradicts them.
    const e = await refusedAlike("status", (l) =>
      l.replace('"status":"successful"', '"status":"incomplete"'),
    );
    expect(e.field).toBe("samples[9].status");
  });

  it("refuses a sample with another number of trials than the header says", async () => {
    // Every sample holds 5 trials; the header says 4.
    const e = await refusedAlike(
      "count",
      (l) => l,
      (t) => t.replace(/\n "trials": 5,/, '\n "trials": 4,'),
    );
    expect(e.field).toBe("samples[0].trials");
  });

  it("refuses a summary whose trial_std is not its samples' trials'", async () => {
    const e = await refusedAlike(
      "std",
      (l) => l,
      (t) => t.replace(/"trial_std": [0-9.e-]+/, '"trial_std": 0.5'),
    );
    expect(e.field).toBe('summary["exact"].trial_std');
  });
});
