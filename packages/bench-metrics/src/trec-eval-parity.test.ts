/**
 * The acceptance test of the retrieval metrics: on NIST trec_eval's own test data, every measure
 * we share with it reproduces the value trec_eval printed, to its 4 decimals, per query and on
 * the `all` line. The runs are replayed through the real `Benchmark` runner with `TrecRun` and
 * `QADataset.fromTrec`, not by calling the kernels.
 */
import { readFileSync } from "node:fs";
import { Benchmark, type Metric } from "@fastrag/bench-core";
import { QADataset, TrecRun } from "@fastrag/bench-datasets";
import { describe, expect, it } from "vitest";
import { sharedData } from "../../../test-support/shared-data.js";
import { HitRate, MAP, MRR, NDCG, Precision, Recall, RPrecision } from "./retrieval.js";

const DATA = sharedData("trec_eval/");

interface Printed {
  readonly measure: string;
  readonly qid: string;
  readonly value: string;
}

/** trec_eval's output: `measure<whitespace>qid<whitespace>value` per line. */
function readPrinted(file: string): Printed[] {
  const out: Printed[] = [];
  for (const line of readFileSync(DATA + file, "utf8").split("\n")) {
    const parts = line.trim().split(/\s+/);
    if (parts.length === 3) out.push({ measure: parts[0]!, qid: parts[1]!, value: parts[2]! });
  }
  return out;
}

/** Our metric for a trec_eval measure name, or undefined when we have no counterpart. */
function metricFor(measure: string): Metric | undefined {
  const cut = /^(P|recall|map_cut|ndcg_cut|success)_(\d+)$/.exec(measure);
  if (cut !== null) {
    const k = Number(cut[2]);
    switch (cut[1]) {
      case "P":
        return new Precision({ k });
      case "recall":
        return new Recall({ k });
      case "map_cut":
        return new MAP({ k });
      case "ndcg_cut":
        return new NDCG({ k });
      case "success":
        return new HitRate({ k });
    }
  }
  if (measure === "map") return new MAP();
  if (measure === "recip_rank") return new MRR();
  if (measure === "Rprec") return new RPrecision();
  return undefined;
}

/**
 * Formats like C's `printf("%.4f")`: correctly rounded, exact ties to even. (JavaScript's
 * `toFixed` rounds exact ties up; a double is an exact tie at 4 decimals only when it is an odd
 * multiple of 1/32.)
 */
function printf4(x: number): string {
  const t = x * 32;
  if (Number.isInteger(t) && Math.abs(t % 2) === 1) {
    const low = Math.floor(x * 10_000);
    return ((low % 2 === 0 ? low : low + 1) / 10_000).toFixed(4);
  }
  return x.toFixed(4);
}

interface Case {
  readonly expected: string;
  readonly qrels: string;
  readonly run: string;
  readonly relevanceLevel?: number;
  readonly what: string;
}

const CASES: Case[] = [
  { expected: "out.test", qrels: "qrels.test", run: "results.test", what: "default measures" },
  { expected: "out.test.a", qrels: "qrels.test", run: "results.test", what: "-m all_trec" },
  { expected: "out.test.aq", qrels: "qrels.test", run: "results.test", what: "per query" },
  {
    expected: "out.test.aqc",
    qrels: "qrels.test",
    run: "results.trunc",
    what: "-c on a truncated run (a missing query scores 0)",
  },
  {
    expected: "out.test.aql",
    qrels: "qrels.rel_level",
    run: "results.test",
    relevanceLevel: 2,
    what: "graded qrels with -l2",
  },
  {
    expected: "out.test.meas_params",
    qrels: "qrels.test",
    run: "results.test",
    what: "cutoff parameters",
  },
];

describe("trec_eval parity", () => {
  it.each(CASES)("$expected ($what)", async (c) => {
    const printed = readPrinted(c.expected);
    const metrics = new Map<string, Metric>();
    for (const p of printed) {
      if (metrics.has(p.measure)) continue;
      const m = metricFor(p.measure);
      if (m !== undefined) metrics.set(p.measure, m);
    }

    const dataset = await QADataset.fromTrec({
      qrels: DATA + c.qrels,
      ...(c.relevanceLevel === undefined ? {} : { relevanceLevel: c.relevanceLevel }),
    });
    const run = await TrecRun.load(DATA + c.run);
    const result = await new Benchmark({ dataset, metrics: [...metrics.values()] }).run(run, {
      name: c.expected,
    });
    expect(result.status.errored).toBe(0);

    const byQid = new Map(result.samples.map((s) => [s.sampleId, s]));
    let compared = 0;
    const families = new Set<string>();
    for (const p of printed) {
      const metric = metrics.get(p.measure);
      if (metric === undefined) continue;
      let ours: number;
      if (p.qid === "all") {
        // trec_eval averages over every query in the qrels, and a query that has judgments but
        // no relevant document counts as 0 there; ours is null for such a query (it cannot tell
        // systems apart), so the `all` comparison maps null to 0.
        let sum = 0;
        for (const s of result.samples) sum += s.scores[metric.name] ?? 0;
        ours = sum / result.samples.length;
      } else {
        const score = byQid.get(p.qid)?.scores[metric.name];
        expect(score, `${p.measure} ${p.qid}`).toBeTypeOf("number");
        ours = score as number;
      }
      expect(printf4(ours), `${p.measure} for ${p.qid} (${metric.name} = ${ours})`).toBe(p.value);
      families.add(p.measure.replace(/_\d+$/, ""));
      compared++;
    }
    // Every file exercises several measure families; the all_trec ones every one we share.
    if (c.expected.startsWith("out.test.a")) {
      expect([...families].sort()).toEqual([
        "P",
        "Rprec",
        "map",
        "map_cut",
        "ndcg_cut",
        "recall",
        "recip_rank",
        "success",
      ]);
    }
    expect(compared).toBeGreaterThan(10);
  });

  it("the -l2 threshold changes binary measures but not ndcg", () => {
    const plain = readPrinted("out.test.aq");
    const graded = readPrinted("out.test.aql");
    const value = (rows: Printed[], measure: string, qid: string) =>
      rows.find((r) => r.measure === measure && r.qid === qid)?.value;
    // Query 301: 474 relevant at grade ≥ 1, 12 at grade ≥ 2.
    expect(value(plain, "num_rel", "301")).toBe("474");
    expect(value(graded, "num_rel", "301")).toBe("12");
    expect(value(graded, "P_10", "301")).not.toBe(value(plain, "P_10", "301"));
  });

  it("printf4 rounds exact ties to even, like C", () => {
    expect(printf4(0.03125)).toBe("0.0312");
    expect(printf4(0.09375)).toBe("0.0938");
    expect(printf4(1 / 3)).toBe("0.3333");
    expect(printf4(0.15185)).toBe((0.15185).toFixed(4));
  });
});
