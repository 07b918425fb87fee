import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigurationError } from "@fastrag/bench-core";
import { beforeAll, describe, expect, it } from "vitest";
import { sharedData } from "../../../../test-support/shared-data.js";
import type { ByteLineParser } from "../io/byte-lines.js";
import { QADataset } from "../qa-dataset.js";
import { QrelsParser } from "./qrels-parser.js";
import { RunParser } from "./run-parser.js";
import { TrecRun } from "./trec-run.js";

// The `queries` option of the TREC loaders: a subset of the queries, as `fastrag-bench eval`
// loads one shard per thread. Kept queries must load exactly as in a whole load.
const shared = (name: string) => sharedData(`trec_eval/${name}`);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "fastrag-trec-queries-"));
});

let seed = 7;
const rand = () => {
  seed = (seed * 1664525 + 1013904223) >>> 0;
  return seed / 2 ** 32;
};

/**
 * A qrels and a run of several MiB (so that lines straddle the 1 MiB read chunks), with the
 * queries' lines interleaved out of order, blank lines, CRLF endings and tabs.
 */
async function bigFiles(): Promise<{ qrels: string; run: string }> {
  const qrelLines: string[] = [];
  const runLines: string[] = [];
  for (let block = 0; block < 5; block++) {
    for (let q = 0; q < 4000; q++) {
      const qid = `q${(q * 7919) % 4000}`;
      for (let j = 0; j < 5; j++)
        qrelLines.push(`${qid} 0 d${block}-${j}-${q % 50} ${Math.floor(rand() * 4) - 1}`);
      for (let d = 0; d < 6; d++) {
        const sep = rand() < 0.1 ? "\t" : " ";
        runLines.push(
          `${qid}${sep}Q0 d${block}-${d}-${q % 50} ${d + 1} ${(rand() * 5).toFixed(1)} tag`,
        );
      }
      if (rand() < 0.01) runLines.push("");
    }
  }
  const qrels = join(dir, "big.qrels");
  const run = join(dir, "big.run");
  await writeFile(qrels, `${qrelLines.join("\r\n")}\r\n`);
  await writeFile(run, `${runLines.join("\n")}`);
  return { qrels, run };
}

const odd = (id: string) => id.length % 2 === 1 || id.endsWith("3");

describe("QADataset.fromTrec({ queries })", () => {
  it("loads the kept queries exactly as a whole load does, in the same order", async () => {
    const { qrels } = await bigFiles();
    const whole = await QADataset.fromTrec({ qrels });
    const asked: string[] = [];
    const kept = await QADataset.fromTrec({
      qrels,
      queries: (id) => {
        asked.push(id);
        return odd(id);
      },
    });
    const rest = await QADataset.fromTrec({ qrels, queries: (id) => !odd(id) });
    // Asked once per distinct query, in order of first appearance.
    expect(asked).toEqual(whole.samples.map((s) => s.id));
    expect(kept.samples).toEqual(whole.samples.filter((s) => odd(s.id as string)));
    expect(rest.samples).toEqual(whole.samples.filter((s) => !odd(s.id as string)));
    expect(kept.samples.length + rest.samples.length).toBe(4000);
  });

  it("applies relevanceLevel to the kept queries as to a whole load", async () => {
    const qrels = shared("qrels.rel_level");
    const whole = await QADataset.fromTrec({ qrels, relevanceLevel: 2 });
    const first = whole.samples[0]?.id as string;
    const kept = await QADataset.fromTrec({
      qrels,
      relevanceLevel: 2,
      queries: (id) => id === first,
    });
    expect(kept.samples).toEqual([whole.samples[0]]);
  });

  it("checks the lines of kept queries only", async () => {
    const qrels = join(dir, "bad.qrels");
    await writeFile(qrels, "a 0 d1 1\nb 0 d1 x\nb 0 d1 1\na 0 d2 0\n");
    const a = await QADataset.fromTrec({ qrels, queries: (id) => id === "a" });
    expect(a.samples).toEqual([
      expect.objectContaining({ id: "a", relevantIds: ["d1"], relevance: { d1: 1, d2: 0 } }),
    ]);
    await expect(QADataset.fromTrec({ qrels, queries: (id) => id === "b" })).rejects.toThrow(
      /bad\.qrels: line 2, column 4 \(rel\)/,
    );
  });

  it("refuses a queries option that is not a function", async () => {
    await expect(
      QADataset.fromTrec({ qrels: shared("qrels.test"), queries: new Set(["1"]) as never }),
    ).rejects.toThrow(ConfigurationError);
  });
});

describe("TrecRun.load(path, { queries })", () => {
  it("holds the kept queries' rankings exactly as a whole load, and none of the others", async () => {
    const { run } = await bigFiles();
    const whole = await TrecRun.load(run);
    const asked: string[] = [];
    const kept = await TrecRun.load(run, {
      queries: (id) => {
        asked.push(id);
        return odd(id);
      },
    });
    expect(asked).toEqual(whole.queryIds());
    expect(kept.queryIds()).toEqual(whole.queryIds().filter(odd));
    for (const id of whole.queryIds()) {
      expect(kept.ranking(id)).toEqual(odd(id) ? whole.ranking(id) : []);
    }
    expect(kept.tag).toBe(whole.tag);
  });

  it("takes the tag from the first line even when its query is not kept", async () => {
    const run = join(dir, "tags.run");
    await writeFile(run, "a Q0 d1 1 2 first\nb Q0 d1 1 2 second\n");
    expect((await TrecRun.load(run, { queries: (id) => id === "b" })).tag).toBe("first");
  });

  it("checks the lines of kept queries only, naming the file's own line", async () => {
    const run = join(dir, "bad.run");
    await writeFile(run, "a Q0 d1 1 2 t\nb Q0 d1 1 high t\nb Q0 d1\na Q0 d2 2 1 t\n");
    const a = await TrecRun.load(run, { queries: (id) => id === "a" });
    expect(a.ranking("a").map((c) => c.id)).toEqual(["d1", "d2"]);
    await expect(TrecRun.load(run, { queries: (id) => id === "b" })).rejects.toThrow(
      /bad\.run: line 2, column 5 \(score\)/,
    );
  });

  it("parses on this thread when asked for a thread and a filter", async () => {
    const whole = await TrecRun.load(shared("results.test"));
    const first = whole.queryIds()[0] as string;
    const kept = await TrecRun.load(shared("results.test"), {
      thread: true,
      queries: (id) => id === first,
    });
    expect(kept.queryIds()).toEqual([first]);
    expect(kept.ranking(first)).toEqual(whole.ranking(first));
  });

  it("refuses a queries option that is not a function", async () => {
    await expect(TrecRun.load(shared("results.test"), { queries: ["1"] as never })).rejects.toThrow(
      /queries must be a function/,
    );
  });
});

/**
 * Feeds `text` to `parser` in pieces cut anywhere (inside a query id, between fields, inside a
 * line ending), as the ByteLineParser contract allows: whatever is not consumed is fed again
 * with the next piece.
 */
function feedInPieces(text: string, parser: ByteLineParser, cuts: () => number): void {
  const all = Buffer.from(text, "utf8");
  let buffer = Buffer.alloc(0);
  let at = 0;
  for (;;) {
    const take = Math.min(all.length - at, cuts());
    buffer = Buffer.concat([buffer, all.subarray(at, at + take)]);
    at += take;
    const last = at === all.length;
    const consumed = parser.feed(buffer, 0, buffer.length, last);
    if (last) break;
    buffer = Buffer.from(buffer.subarray(consumed));
  }
}

describe("the queries filter, fed in pieces cut anywhere", () => {
  const qrelLines: string[] = [];
  const runLines: string[] = [];
  for (let q = 0; q < 300; q++) {
    const qid = `query-${(q * 37) % 120}`;
    qrelLines.push(`${qid} 0 doc${q % 7} ${q % 3}`, `${qid}\t0 doc${(q % 7) + 10} 1`, "  ");
    runLines.push(
      `${qid} Q0 doc${q % 13} 1 ${q % 5}.5 run${q}`,
      `${qid} Q0 doc${(q % 13) + 20} 2 0.25 run`,
    );
  }
  const qrels = `${qrelLines.join("\r\n")}\n`;
  const run = runLines.join("\n");
  const keep = (id: string) => id.endsWith("1") || id.endsWith("4") || id.endsWith("8");

  it("keeps the same judgments whatever the cuts", () => {
    const whole = new QrelsParser("q", undefined, keep);
    feedInPieces(qrels, whole, () => qrels.length);
    expect(whole.qids.length).toBeGreaterThan(20);
    for (const size of [1, 2, 3, 5, 8, 13]) {
      const asked: string[] = [];
      const pieces = new QrelsParser("q", undefined, (id) => {
        asked.push(id);
        return keep(id);
      });
      feedInPieces(qrels, pieces, () => 1 + Math.floor(rand() * size));
      expect(pieces.qids).toEqual(whole.qids);
      expect(pieces.relevance).toEqual(whole.relevance);
      expect(pieces.relevantIds).toEqual(whole.relevantIds);
      expect(pieces.firstLines).toEqual(whole.firstLines);
      expect(new Set(asked).size).toBe(asked.length);
      expect(asked.filter(keep)).toEqual(whole.qids);
    }
  });

  it("keeps the same rankings whatever the cuts", () => {
    const whole = new RunParser("r", keep);
    feedInPieces(run, whole, () => run.length);
    whole.finish();
    for (const size of [1, 2, 3, 5, 8, 13]) {
      const pieces = new RunParser("r", keep);
      feedInPieces(run, pieces, () => 1 + Math.floor(rand() * size));
      pieces.finish();
      const a = whole.columns();
      const b = pieces.columns();
      expect(b.qids).toEqual(a.qids);
      expect(b.tag).toBe("run0");
      expect([...b.starts]).toEqual([...a.starts]);
      const ids = (c: typeof a) =>
        [...c.docIds.subarray(0, c.starts[c.qids.length])].map((id) => c.names[id]);
      expect(ids(b)).toEqual(ids(a));
    }
  });
});
