import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BenchmarkResult, ConfigurationError } from "@fastrag/bench-core";
import { describe, expect, it } from "vitest";
import { makeResult } from "./__fixtures__/make-result.js";
import { pairedScores, pairSamples } from "./pairing.js";

describe("pairSamples", () => {
  it("pairs by sample_id, whatever the order", () => {
    const a = makeResult({
      name: "a",
      scores: { m: [0.1, 0.2, 0.3] },
      ids: ["x", "y", "z"],
      questions: ["x?", "y?", "z?"],
    });
    const b = makeResult({
      name: "b",
      scores: { m: [0.3, 0.1, 0.2] },
      ids: ["z", "x", "y"],
      questions: ["z?", "x?", "y?"],
    });
    const p = pairedScores(a, b, "m");
    expect(p.key).toBe("sample_id");
    expect([...p.a]).toEqual([0.1, 0.2, 0.3]);
    expect([...p.b]).toEqual([0.1, 0.2, 0.3]);
  });

  it("refuses ids that name different questions in runs without fingerprints", () => {
    const a = makeResult({
      name: "a",
      scores: { m: [1, 0] },
      ids: ["q0", "q1"],
      questions: ["Who wrote Hamlet?", "What is BM25?"],
    });
    for (const ids of [
      ["q0", "q1"],
      ["q1", "q0"],
    ]) {
      const b = makeResult({
        name: "b",
        scores: { m: [1, 1] },
        ids,
        questions: ["What is a vector index?", "Who wrote Hamlet?"],
      });
      expect(() => pairSamples(a, b)).toThrow(
        /cannot pair runs "a" and "b": they cover different datasets: sample id "q\d" is ".*" in "a" but ".*" in "b"/,
      );
    }
    // With one fingerprint on both sides the dataset is known to be one: questions are not read.
    const fa = makeResult({
      name: "a",
      scores: { m: [1, 0] },
      ids: ["q0", "q1"],
      fingerprint: "sha256:x",
    });
    const fb = makeResult({
      name: "b",
      scores: { m: [1, 1] },
      ids: ["q0", "q1"],
      questions: ["edited?", "edited too?"],
      fingerprint: "sha256:x",
    });
    expect(pairSamples(fa, fb).key).toBe("sample_id");
  });

  it("names an example id when two fingerprints differ", () => {
    const a = makeResult({
      name: "a",
      scores: { m: [1, 0, 1] },
      ids: ["q0", "q1", "q2"],
      fingerprint: "sha256:a",
    });
    const b = makeResult({
      name: "b",
      scores: { m: [1, 0, 1] },
      ids: ["z0", "q1", "q2"],
      fingerprint: "sha256:b",
    });
    expect(() => pairSamples(a, b)).toThrow(
      /different datasets \(.*; e\.g\. sample id "q0" only in "a", sample id "z0" only in "b"\): paired tests and diffs need runs over one dataset$/,
    );
    const shuffled = makeResult({
      name: "c",
      scores: { m: [1, 0, 1] },
      ids: ["q2", "q1", "q0"],
      fingerprint: "sha256:c",
    });
    expect(() => pairSamples(a, shuffled)).toThrow(
      /the same sample ids in another order\)\. The fingerprint covers the samples' order too.*run both on the dataset in one order$/,
    );
    const edited = makeResult({
      name: "d",
      scores: { m: [1, 0, 1] },
      ids: ["q0", "q1", "q2"],
      fingerprint: "sha256:d",
    });
    expect(() => pairSamples(a, edited)).toThrow(
      /same sample ids in the same order, so their questions or judgments differ/,
    );
  });

  it("pairs by question when ids are missing, else by position", () => {
    const qs = ["who?", "what?", "when?"];
    const a = makeResult({ name: "a", scores: { m: [1, 2, 3] }, ids: false, questions: qs });
    const b = makeResult({
      name: "b",
      scores: { m: [3, 1, 2] },
      ids: false,
      questions: ["when?", "who?", "what?"],
    });
    expect(pairSamples(a, b).key).toBe("question");
    expect([...pairedScores(a, b, "m").b]).toEqual([1, 2, 3]);
    const dupA = makeResult({
      name: "a",
      scores: { m: [1, 2] },
      ids: false,
      questions: ["q", "q"],
    });
    const dupB = makeResult({
      name: "b",
      scores: { m: [5, 6] },
      ids: false,
      questions: ["q", "q"],
    });
    const byPos = pairedScores(dupA, dupB, "m");
    expect(byPos.key).toBe("position");
    expect([...byPos.b]).toEqual([5, 6]);
  });

  it("refuses to pair by position where a position holds different questions", () => {
    const a = makeResult({
      name: "a",
      scores: { m: [1, 2, 3] },
      ids: false,
      questions: ["x", "x", "y"],
    });
    const b = makeResult({
      name: "b",
      scores: { m: [1, 2, 3] },
      ids: false,
      questions: ["y", "x", "x"],
    });
    expect(() => pairSamples(a, b)).toThrow(ConfigurationError);
    expect(() => pairSamples(a, b)).toThrow(/pairing by position .* sample 1 differs: "x" vs "y"/);
  });

  it("leaves errored and null scores out of a pair and counts them", () => {
    const a = makeResult({ name: "a", scores: { m: [1, "error", 0.5, null] } });
    const b = makeResult({ name: "b", scores: { m: [0, 1, null, 1] } });
    const p = pairedScores(a, b, "m");
    expect([...p.a]).toEqual([1]);
    expect([...p.b]).toEqual([0]);
    expect(p.leftOut).toBe(3);
  });

  it("refuses a run that is not a result, or a metric that is not a name", () => {
    const a = makeResult({ name: "a", scores: { m: [1, 0] } });
    expect(() => pairSamples(a, null as never)).toThrow(
      "pairSamples: b: expected a BenchmarkResult, found null",
    );
    expect(() => pairedScores(5 as never, a, "m")).toThrow(
      "pairedScores: a: expected a BenchmarkResult, found the number 5",
    );
    expect(() => pairedScores(a, a, null as never)).toThrow(
      "pairedScores: expected a metric name, found null",
    );
  });

  it("refuses runs over different datasets, saying how they differ", () => {
    const a = makeResult({ name: "bm25", scores: { m: [1, 2, 3] }, ids: ["q1", "q2", "q3"] });
    const b = makeResult({ name: "dense", scores: { m: [1, 2] }, ids: ["q1", "q9"] });
    expect(() => pairSamples(a, b)).toThrow(ConfigurationError);
    expect(() => pairSamples(a, b)).toThrow(
      'cannot pair runs "bm25" and "dense": they cover different datasets (3 samples vs 2, matched by sample ids): 2 only in "bm25" (e.g. "q2"); 1 only in "dense" (e.g. "q9")',
    );
  });

  it("refuses different dataset fingerprints", () => {
    const a = makeResult({ name: "a", scores: { m: [1] }, fingerprint: "abc" });
    const b = makeResult({ name: "b", scores: { m: [1] }, fingerprint: "def" });
    expect(() => pairSamples(a, b)).toThrow(
      /different datasets \(fingerprint abc, 1 samples vs fingerprint def/,
    );
  });

  it("refuses different lengths when pairing by position, and duplicate sample ids", () => {
    const a = makeResult({ name: "a", scores: { m: [1, 2] }, ids: false, questions: ["q", "q"] });
    const b = makeResult({
      name: "b",
      scores: { m: [1, 2, 3] },
      ids: false,
      questions: ["q", "q", "q"],
    });
    expect(() => pairSamples(a, b)).toThrow(/2 samples vs 3/);
    const dup = makeResult({ name: "d", scores: { m: [1, 2] }, ids: ["x", "x"] });
    expect(() => pairSamples(dup, dup)).toThrow(/sample id "x" appears twice \(samples 1 and 2\)/);
  });

  it("refuses a metric a run lacks", () => {
    const a = makeResult({ name: "a", scores: { m: [1] } });
    const b = makeResult({ name: "b", scores: { n: [1] } });
    expect(() => pairedScores(a, b, "m")).toThrow(/run "b" has no metric "m"; it has "n"/);
  });
});

describe("pairedScores with metric names from Object.prototype", () => {
  it("refuses a metric a run only inherits, and pairs one it owns", () => {
    const a = makeResult({ name: "a", scores: { ["__proto__"]: [1, 0], m: [1, 1] } });
    const b = makeResult({ name: "b", scores: { ["__proto__"]: [0.5, 0.25], m: [1, 1] } });
    for (const metric of ["toString", "constructor", "hasOwnProperty"]) {
      expect(() => pairedScores(a, b, metric)).toThrow(`run "a" has no metric "${metric}"`);
    }
    const p = pairedScores(a, b, "__proto__");
    expect([...p.a]).toEqual([1, 0]);
    expect([...p.b]).toEqual([0.5, 0.25]);
    expect(p.leftOut).toBe(0);
  });
});

describe("pairSamples on lazily loaded runs without fingerprints", () => {
  async function saved(dir: string, name: string, questions: string[]): Promise<string> {
    const r = makeResult({
      name,
      scores: { m: questions.map((_, i) => i / 10) },
      ids: questions.map((_, i) => `q${i}`),
      questions,
    });
    const path = join(dir, `${name}.json`);
    await r.save(path);
    return path;
  }

  it("checks the questions by their hashes, without reading the records", async () => {
    const dir = await mkdtemp(join(tmpdir(), "fastrag-pairing-"));
    // An escape spelled two ways ("\u00e9" and "é") is one question.
    const questions = ["Who wrote Hamlet?", "Qu'est-ce que BM25 ? é", 'A "quoted" one\n'];
    const pa = await saved(dir, "a", questions);
    const pb = await saved(dir, "b", questions);
    await writeFile(pb, (await readFile(pb, "utf8")).replace("é", "\\u00e9"));
    const a = await BenchmarkResult.load(pa, { lazy: true });
    const b = await BenchmarkResult.load(pb, { lazy: true });
    expect(a.questionHashes()?.length).toBe(6);
    expect([...(a.questionHashes() as Int32Array)]).toEqual([
      ...(b.questionHashes() as Int32Array),
    ]);
    // The records can no longer be read (the files changed): pairing must not need them.
    await writeFile(pa, "changed");
    await writeFile(pb, "changed");
    const p = pairSamples(a, b);
    expect([...p.indexB]).toEqual([0, 1, 2]);
  });

  it("still refuses, naming the question, runs whose questions differ", async () => {
    const dir = await mkdtemp(join(tmpdir(), "fastrag-pairing-"));
    const a = await BenchmarkResult.load(await saved(dir, "a", ["Who?", "What?"]), { lazy: true });
    const b = await BenchmarkResult.load(await saved(dir, "b", ["Who?", "Why?"]), { lazy: true });
    expect(() => pairSamples(a, b)).toThrow(/sample id "q1" is "What\?" in "a" but "Why\?" in "b"/);
  });
});
