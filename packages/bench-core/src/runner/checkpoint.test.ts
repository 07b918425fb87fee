import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { appendFile, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { Benchmark } from "../benchmark.js";
import { BenchmarkResult } from "../benchmark-result.js";
import { ConfigurationError } from "../errors.js";
import { RunAbortedError } from "../run-errors.js";
import type { EvalSample, Metric, QueryEngine } from "../types.js";
import { ABORT_GRACE } from "./metric-cutter.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "fastrag-journal-"));
});

const samples: EvalSample[] = Array.from({ length: 20 }, (_, i) => ({
  id: `q${i}`,
  question: `question ${i}`,
  expectedAnswers: [`answer ${i}`],
  relevantIds: [],
}));
const exact: Metric = {
  name: "exact",
  higherIsBetter: true,
  needsRelevantIds: false,
  needsAnswer: true,
  score: ({ sample, answer }) => (answer === sample.expectedAnswers[0] ? 1 : 0),
};

function countingEngine(
  calls: Map<string, number>,
  fail: (id: string) => boolean = () => false,
): QueryEngine {
  return {
    async query(_q, { sample }) {
      const id = sample.id as string;
      calls.set(id, (calls.get(id) ?? 0) + 1);
      if (fail(id)) throw new Error(`failed ${id}`);
      return { answer: sample.expectedAnswers[0] as string };
    },
  };
}

// Latency is the clock's, and an error's stack names the files and call path of the process that
// ran the sample (a child process importing dist/, or this one importing src/): only its first
// line, the error itself, is the same.
const strip = (r: BenchmarkResult) =>
  r.samples.map(({ latencyMs: _l, errorStack, ...rest }) =>
    errorStack === undefined ? rest : { ...rest, errorStack: errorStack.split("\n")[0] },
  );

describe("checkpoint journal", () => {
  it("skips finished samples on resume and ends equal to an uninterrupted run", async () => {
    const journal = join(dir, "resume.jsonl");
    const calls = new Map<string, number>();
    const controller = new AbortController();
    const engine = countingEngine(calls);
    const aborting: QueryEngine = {
      async query(q, o) {
        if (o.sample.id === "q8") controller.abort();
        return engine.query(q, o);
      },
    };
    const b = new Benchmark({ dataset: samples, metrics: [exact], maxConcurrent: 1 });
    const aborted = await b
      .run(aborting, { name: "r", checkpoint: journal, signal: controller.signal })
      .catch((e: unknown) => e);
    expect(RunAbortedError.isInstance(aborted)).toBe(true);
    const lines = (await readFile(journal, "utf8")).trim().split("\n");
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      journal: "fastrag-bench-journal/1",
      name: "r",
      metrics: ["exact"],
    });
    // q0..q7 finished; q8 was in flight when the run aborted: it settled, and is journaled too.
    expect(lines).toHaveLength(1 + 9);

    const resumed = await b.run(engine, { name: "r", checkpoint: journal });
    // No sample runs twice.
    for (const s of samples) expect(calls.get(s.id as string), s.id).toBe(1);
    const clean = await b.run(countingEngine(new Map()), { name: "r" });
    expect(strip(resumed)).toEqual(strip(clean));
    expect(resumed.status).toEqual(clean.status);
  });

  it("re-runs errored samples only when asked", async () => {
    const journal = join(dir, "errored.jsonl");
    const calls = new Map<string, number>();
    const b = new Benchmark({ dataset: samples, metrics: [exact] });
    const first = await b.run(
      countingEngine(calls, (id) => id === "q3"),
      { name: "e", checkpoint: journal },
    );
    expect(first.status.errored).toBe(1);
    const again = await b.run(countingEngine(calls), { name: "e", checkpoint: journal });
    expect(again.status.errored).toBe(1);
    expect(calls.get("q3")).toBe(1);
    const retried = await b.run(countingEngine(calls), {
      name: "e",
      checkpoint: journal,
      retryErrored: true,
    });
    expect(retried.status).toEqual({ successful: 20, errored: 0, incomplete: 0 });
    expect(calls.get("q3")).toBe(2);
    expect(calls.get("q4")).toBe(1);
    // The journal now ends with the recovered line, and a later resume keeps it.
    const last = await b.run(countingEngine(calls), { name: "e", checkpoint: journal });
    expect(last.status.errored).toBe(0);
  });

  it("refuses a journal of another run, dataset or metric set", async () => {
    const journal = join(dir, "mismatch.jsonl");
    const b = new Benchmark({ dataset: samples, metrics: [exact] });
    await b.run(countingEngine(new Map()), { name: "m", checkpoint: journal });
    await expect(
      b.run(countingEngine(new Map()), { name: "other", checkpoint: journal }),
    ).rejects.toThrow(/belongs to another run: run name is "m"/);
    const other = new Benchmark({ dataset: samples.slice(1), metrics: [exact] });
    await expect(
      other.run(countingEngine(new Map()), { name: "m", checkpoint: journal }),
    ).rejects.toThrow(/dataset differs/);
    const moreMetrics = new Benchmark({
      dataset: samples,
      metrics: [exact, { ...exact, name: "exact2" }],
    });
    await expect(
      moreMetrics.run(countingEngine(new Map()), { name: "m", checkpoint: journal }),
    ).rejects.toThrow(/metrics differ/);
    const notJournal = join(dir, "not-journal.jsonl");
    await writeFile(notJournal, '{"samples": []}\n');
    await expect(
      b.run(countingEngine(new Map()), { name: "m", checkpoint: notJournal }),
    ).rejects.toThrow(ConfigurationError);
  });

  it("drops a torn last line and re-runs that sample", async () => {
    const journal = join(dir, "torn.jsonl");
    const b = new Benchmark({ dataset: samples, metrics: [exact], maxConcurrent: 1 });
    await b.run(countingEngine(new Map()), { name: "t", checkpoint: journal });
    const text = await readFile(journal, "utf8");
    const lines = text.trim().split("\n");
    // Keep the header and 5 samples, then half of the 6th line, as a kill mid-write leaves it.
    const torn = `${lines.slice(0, 6).join("\n")}\n${(lines[6] as string).slice(0, 25)}`;
    await writeFile(journal, torn);
    const calls = new Map<string, number>();
    const resumed = await b.run(countingEngine(calls), { name: "t", checkpoint: journal });
    expect(resumed.samples).toHaveLength(20);
    expect(calls.size).toBe(15);
    expect(calls.has("q5")).toBe(true);
    // The torn bytes were cut: every journal line parses.
    for (const line of (await readFile(journal, "utf8")).trim().split("\n"))
      expect(() => JSON.parse(line)).not.toThrow();
  });

  it("drops a broken line in the middle with a warning naming its sample, and runs that sample again", async () => {
    const journal = join(dir, "corrupt.jsonl");
    const b = new Benchmark({ dataset: samples, metrics: [exact] });
    await b.run(countingEngine(new Map()), { name: "c", checkpoint: journal });
    const lines = (await readFile(journal, "utf8")).split("\n");
    const index = JSON.parse(lines[3] as string).index as number;
    lines[3] = (lines[3] as string).slice(0, 20);
    await writeFile(journal, lines.join("\n"));
    const calls = new Map<string, number>();
    const warnings: string[] = [];
    const resumed = await b.run(countingEngine(calls), {
      name: "c",
      checkpoint: journal,
      onWarning: (m) => warnings.push(m),
    });
    expect([...calls.keys()]).toEqual([`q${index}`]);
    expect(resumed.samples).toHaveLength(20);
    expect(warnings).toEqual([
      `${journal}:4: dropped a line cut short by a failed or interrupted write (20 bytes); it held sample index ${index} (id "q${index}"), which runs again`,
    ]);
  });

  it("refuses a line whose sample is not the dataset's sample at its index", async () => {
    const journal = join(dir, "swapped.jsonl");
    const b = new Benchmark({ dataset: samples, metrics: [exact] });
    await b.run(countingEngine(new Map()), { name: "s", checkpoint: journal });
    const lines = (await readFile(journal, "utf8")).trim().split("\n");
    const entry = (n: number) => JSON.parse(lines[n] as string);

    // Line 3 says index 5 but holds another sample (an edit, or bytes from elsewhere).
    const moved = { ...entry(2), index: 5 };
    await writeFile(journal, `${[lines[0], lines[1], JSON.stringify(moved)].join("\n")}\n`);
    const calls = new Map<string, number>();
    await expect(b.run(countingEngine(calls), { name: "s", checkpoint: journal })).rejects.toThrow(
      /swapped\.jsonl:3: sample index 5 is id "q1" \("question 1"\) in the journal but id "q5" \("question 5"\) in the dataset; the journal is damaged/,
    );
    expect(calls.size).toBe(0);

    // A sample whose scores are not this run's metrics.
    const rescored = entry(1);
    rescored.sample.scores = { other: 1 };
    await writeFile(journal, `${[lines[0], JSON.stringify(rescored)].join("\n")}\n`);
    await expect(b.run(countingEngine(calls), { name: "s", checkpoint: journal })).rejects.toThrow(
      /swapped\.jsonl:2: sample index 0 has scores for \[other\], expected \[exact\]/,
    );
  });

  it("resumes a journal whose target edited a sample's question in place", async () => {
    // The runner records the question as the dataset held it before the call (untrimmed), and a
    // resume compares samples by id: a target that trims questions resumes its own journal.
    const journal = join(dir, "edited.jsonl");
    const fresh = () => samples.map((s) => ({ ...s, question: ` ${s.question} ` }));
    const trimming = (calls: Map<string, number>): QueryEngine => ({
      async query(_q, { sample }) {
        const id = sample.id as string;
        calls.set(id, (calls.get(id) ?? 0) + 1);
        (sample as { question: string }).question = sample.question.trim();
        if (id === "q5") throw new Error("stop here");
        return { answer: sample.expectedAnswers[0] as string };
      },
    });
    await new Benchmark({ dataset: fresh(), metrics: [exact], maxConcurrent: 1 }).run(
      trimming(new Map()),
      { name: "e", checkpoint: journal },
    );
    const calls = new Map<string, number>();
    const resumed = await new Benchmark({ dataset: fresh(), metrics: [exact] }).run(
      trimming(calls),
      { name: "e", checkpoint: journal, retryErrored: true },
    );
    expect([...calls.keys()]).toEqual(["q5"]);
    expect(resumed.samples).toHaveLength(20);
  });

  it("refuses a line of a shard journal whose index belongs to another shard", async () => {
    const journal = join(dir, "shard.jsonl");
    const b = new Benchmark({ dataset: samples, metrics: [exact] });
    const shard = { index: 1, count: 4 };
    await b.run(countingEngine(new Map()), { name: "sh", checkpoint: journal, shard });
    const lines = (await readFile(journal, "utf8")).trim().split("\n");
    const entry = JSON.parse(lines[1] as string);
    expect(entry.index).toBe(1);
    entry.index = 2;
    await writeFile(journal, `${[lines[0], JSON.stringify(entry)].join("\n")}\n`);
    await expect(
      b.run(countingEngine(new Map()), { name: "sh", checkpoint: journal, shard }),
    ).rejects.toThrow(
      /shard\.jsonl:2: sample index 2 is not in shard 2 of 4; the journal is damaged/,
    );
  });

  it("starts afresh from a journal holding only a torn header", async () => {
    const journal = join(dir, "torn-header.jsonl");
    await writeFile(journal, '{"journal":"fastrag-bench-jour');
    const b = new Benchmark({ dataset: samples, metrics: [exact] });
    const r = await b.run(countingEngine(new Map()), { name: "h", checkpoint: journal });
    expect(r.samples).toHaveLength(20);
    await appendFile(journal, "");
    expect(JSON.parse((await readFile(journal, "utf8")).split("\n")[0] as string).name).toBe("h");
  });

  it("refuses, and leaves untouched, a one-line file that is not a journal", async () => {
    for (const [name, text] of [
      ["notes.txt", "API_KEY rotation notes: do not delete\n"],
      ["model.txt", "gpt-4o-mini"],
      ["config.json", '{"a":1}'],
      ["other.jsonl", '{"journal":"something-else/1"'],
    ] as const) {
      const file = join(dir, name);
      await writeFile(file, text);
      const b = new Benchmark({ dataset: samples, metrics: [exact] });
      await expect(
        b.run(countingEngine(new Map()), { name: "h", checkpoint: file }),
        name,
      ).rejects.toThrow(/not a fastrag bench checkpoint journal .*left as is/);
      expect(await readFile(file, "utf8"), name).toBe(text);
    }
  });

  it("refuses a second run that starts the same new journal at the same moment", async () => {
    const journal = join(dir, "race.jsonl");
    const b = new Benchmark({ dataset: samples, metrics: [exact] });
    const [one, two] = await Promise.allSettled([
      b.run(countingEngine(new Map()), { name: "r", checkpoint: journal }),
      b.run(countingEngine(new Map()), { name: "r", checkpoint: journal }),
    ]);
    expect(one.status).toBe("fulfilled");
    expect(two.status).toBe("rejected");
    const reason = (two as PromiseRejectedResult).reason;
    expect(ConfigurationError.isInstance(reason)).toBe(true);
    expect(reason.message).toBe(
      `${journal}: another run of this process is using this checkpoint journal; two runs on one journal would both run the samples it lacks (give each run its own checkpoint path, or resume once the other has finished)`,
    );
    const lines = (await readFile(journal, "utf8")).trim().split("\n");
    expect(lines).toHaveLength(21);
    expect(lines.filter((l) => l.startsWith('{"journal"'))).toHaveLength(1);
  });

  it("refuses a second run resuming a journal another run of this process is still using", async () => {
    const journal = join(dir, "busy.jsonl");
    const b = new Benchmark({ dataset: samples, metrics: [exact], maxConcurrent: 1 });
    // A first run leaves 5 of 20 samples in the journal.
    const controller = new AbortController();
    const first = countingEngine(new Map());
    await b
      .run(
        {
          async query(q, o) {
            if (o.sample.id === "q4") controller.abort();
            return first.query(q, o);
          },
        },
        { name: "r", checkpoint: journal, signal: controller.signal },
      )
      .catch(() => {});
    // Two resumes at once, the second by another spelling of the path: each would run the same
    // 15 missing samples.
    const calls = new Map<string, number>();
    const [one, two] = await Promise.allSettled([
      b.run(countingEngine(calls), { name: "r", checkpoint: journal }),
      b.run(countingEngine(calls), { name: "r", checkpoint: join(dir, ".", "busy.jsonl") }),
    ]);
    expect(one.status).toBe("fulfilled");
    expect(two.status).toBe("rejected");
    expect(ConfigurationError.isInstance((two as PromiseRejectedResult).reason)).toBe(true);
    expect([...calls.values()].reduce((a, n) => a + n, 0)).toBe(15);
    expect(Math.max(...calls.values())).toBe(1);
    // Released once the run ends, however it ends: a run after it resumes (nothing left to run).
    const again = new Map<string, number>();
    const done = await b.run(countingEngine(again), { name: "r", checkpoint: journal });
    expect(done.samples).toHaveLength(20);
    expect(again.size).toBe(0);
    const other = new Benchmark({ dataset: samples.slice(0, 3), metrics: [exact] });
    await expect(
      other.run(countingEngine(new Map()), { name: "r", checkpoint: journal }),
    ).rejects.toThrow(/fingerprint|dataset/);
    await expect(
      b.run(countingEngine(new Map()), { name: "r", checkpoint: journal }),
    ).resolves.toBeDefined();
  });

  it("refuses a journal whose folder cannot be made with a ConfigurationError", async () => {
    // /proc refuses new entries with ENOENT; the raw system error used to escape.
    const journal = "/proc/fastrag-no-such-dir/run.jsonl";
    const b = new Benchmark({ dataset: samples, metrics: [exact] });
    const error = await b
      .run(countingEngine(new Map()), { name: "p", checkpoint: journal })
      .catch((e: unknown) => e);
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /^\/proc\/fastrag-no-such-dir\/run\.jsonl: cannot write the checkpoint journal: ENOENT/,
    );
  });

  it('tells metrics ["a, b"] from metrics ["a", "b"] in a journal header', async () => {
    const journal = join(dir, "comma.jsonl");
    const joined = new Benchmark({ dataset: samples, metrics: [{ ...exact, name: "a, b" }] });
    await joined.run(countingEngine(new Map()), { name: "c", checkpoint: journal });
    const split = new Benchmark({
      dataset: samples,
      metrics: [
        { ...exact, name: "a" },
        { ...exact, name: "b" },
      ],
    });
    await expect(
      split.run(countingEngine(new Map()), { name: "c", checkpoint: journal }),
    ).rejects.toThrow(
      'belongs to another run: metrics differ (journal ["a, b"], this run ["a", "b"])',
    );
  });

  it("does not journal a sample whose judge still hung at the abort; a resume scores it", async () => {
    const grace = ABORT_GRACE.ms;
    ABORT_GRACE.ms = 20; // a hung judge is given up 20 ms after the abort, not 10 s
    onTestFinished(() => {
      ABORT_GRACE.ms = grace;
    });
    const journal = join(dir, "hung-judge.jsonl");
    const controller = new AbortController();
    let hang = true;
    const judge: Metric = {
      name: "judge",
      higherIsBetter: true,
      needsRelevantIds: false,
      needsAnswer: true,
      score: ({ sample }) => {
        if (!hang || sample.id !== "q3") return Promise.resolve(1);
        setTimeout(() => controller.abort(), 5);
        return new Promise<number>(() => {}); // a judge that hangs and ignores its signal
      },
    };
    const b = new Benchmark({ dataset: samples, metrics: [exact, judge], maxConcurrent: 1 });
    const aborted = await Promise.race([
      b
        .run(countingEngine(new Map()), {
          name: "j",
          checkpoint: journal,
          signal: controller.signal,
        })
        .catch((e: unknown) => e),
      new Promise((r) => setTimeout(() => r("still pending"), 20_000)),
    ]);
    expect(RunAbortedError.isInstance(aborted)).toBe(true);
    const partial = (aborted as RunAbortedError<BenchmarkResult>).partial;
    expect(partial.samples.map((s) => s.sampleId)).toEqual(["q0", "q1", "q2"]);
    const lines = (await readFile(journal, "utf8")).trim().split("\n");
    expect(lines.slice(1).map((l) => JSON.parse(l).index)).toEqual([0, 1, 2]);

    hang = false;
    const calls = new Map<string, number>();
    const resumed = await b.run(countingEngine(calls), { name: "j", checkpoint: journal });
    expect([...calls.keys()][0]).toBe("q3");
    expect(calls.size).toBe(17);
    expect(resumed.status).toEqual({ successful: 20, errored: 0, incomplete: 0 });
  });

  it("resumes in the same process after a target edited the samples in place", async () => {
    // Same Benchmark, same sample objects: the first run's target rewrote questions (a string,
    // then a number). The journal holds the questions the dataset held, and so does the
    // Benchmark, which checks the journal against what it validated, not the edited objects.
    for (const edit of [(q: string) => `${q} (rewritten)`, () => 42]) {
      const journal = join(dir, `edited-in-memory-${typeof edit("")}.jsonl`);
      const data = samples.map(({ id: _id, ...rest }) => ({ ...rest }));
      const b = new Benchmark({ dataset: data, metrics: [exact], maxConcurrent: 1 });
      const controller = new AbortController();
      await b
        .run(
          {
            async query(question, o) {
              if (question === "question 2") controller.abort();
              (o.sample as { question: unknown }).question = edit(question);
              if (question === "question 1") throw new Error("transient");
              return { answer: o.sample.expectedAnswers[0] as string };
            },
          },
          { name: "m", checkpoint: journal, signal: controller.signal },
        )
        .catch(() => {});
      const asked: string[] = [];
      const resumed = await b.run(
        {
          async query(question, o) {
            asked.push(question);
            return { answer: o.sample.expectedAnswers[0] as string };
          },
        },
        { name: "m", checkpoint: journal, retryErrored: true },
      );
      // question 1 errored and is asked again, as the dataset held it; 0 and 2 were finished.
      expect(asked.slice(0, 1)).toEqual(["question 1"]);
      expect(asked).toHaveLength(18);
      expect(resumed.samples.map((s) => s.question)).toEqual(samples.map((s) => s.question));
      expect(resumed.status).toEqual({ successful: 20, errored: 0, incomplete: 0 });
    }
  });

  it("journals the question and id the dataset held, so a fresh process resumes", async () => {
    // A target that overwrites the sample's question and id: the journal must not take them.
    const noIds = samples.map(({ id: _id, ...rest }) => rest);
    for (const [label, data] of [
      ["ids", samples],
      ["no ids", noIds],
    ] as const) {
      const journal = join(dir, `vandal-${label.replace(" ", "-")}.jsonl`);
      const controller = new AbortController();
      const vandal: QueryEngine = {
        async query(question, o) {
          if (question === "question 6") controller.abort();
          (o.sample as { question: unknown }).question = 42;
          if (o.sample.id !== undefined) (o.sample as { id: unknown }).id = 7;
          return { answer: o.sample.expectedAnswers[0] as string };
        },
      };
      // Each run gets its own copy of the dataset, as a new process loading the file would.
      const copy = () => data.map((s) => ({ ...s }));
      const first = await new Benchmark({ dataset: copy(), metrics: [exact], maxConcurrent: 1 })
        .run(vandal, { name: "v", checkpoint: journal, signal: controller.signal })
        .catch((e: unknown) => e);
      expect(RunAbortedError.isInstance(first), label).toBe(true);
      const lines = (await readFile(journal, "utf8")).trim().split("\n");
      const entry = JSON.parse(lines[1] as string);
      expect(entry.sample.question, label).toBe("question 0");
      expect(entry.sample.sample_id, label).toBe(label === "ids" ? "q0" : undefined);

      const resumed = await new Benchmark({ dataset: copy(), metrics: [exact] }).run(
        countingEngine(new Map()),
        { name: "v", checkpoint: journal },
      );
      expect(
        resumed.samples.map((s) => s.question),
        label,
      ).toEqual(samples.map((s) => s.question));
      expect(resumed.status, label).toEqual({ successful: 20, errored: 0, incomplete: 0 });
    }
  });
});

const fixture = fileURLToPath(new URL("../__fixtures__/kill-run.mjs", import.meta.url));
const built = fileURLToPath(new URL("../../dist/index.js", import.meta.url));

function startChild(args: string[]): ChildProcess {
  return spawn(process.execPath, [fixture, ...args], { stdio: ["ignore", "ignore", "pipe"] });
}

/** The lines of the calls file the children write, one per call. */
async function countCalls(calls: string): Promise<number> {
  return (await readFile(calls, "utf8")).split("\n").length - 1;
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once("exit", (code) => resolve(code)));
}

describe.runIf(existsSync(built))("SIGKILL acceptance (needs the built package)", () => {
  it("loses no finished sample and runs none twice across three kills", async () => {
    const n = 2000;
    const journal = join(dir, "kill.jsonl");
    const calls = join(dir, "kill-calls.txt");
    const out = join(dir, "kill-result.json");
    await writeFile(calls, "");
    const callCount = () => countCalls(calls);
    for (let kill = 0; kill < 3; kill++) {
      // Kill at a random point once the run has visibly progressed. The child's calls after that
      // point hang (with up to 8 in flight), so it cannot finish first on a slow machine.
      const target = ((kill + 1) * n) / 5 + Math.floor(Math.random() * (n / 10));
      const hangAfter = target - (await callCount());
      const child = startChild([journal, calls, out, String(n), String(hangAfter)]);
      const done = exited(child);
      while ((await callCount()) < target) await new Promise((r) => setTimeout(r, 5));
      child.kill("SIGKILL");
      expect(await done).toBeNull();
      expect(existsSync(out)).toBe(false);
    }
    const child = startChild([journal, calls, out, String(n)]);
    expect(await exited(child)).toBe(0);
    const resumed = await BenchmarkResult.load(out);

    const counts = new Map<string, number>();
    for (const id of (await readFile(calls, "utf8")).split("\n"))
      if (id) counts.set(id, (counts.get(id) ?? 0) + 1);
    expect(counts.size).toBe(n);
    const twice = [...counts.values()].filter((c) => c > 1);
    // Only samples in flight at a kill (at most maxConcurrent = 8 per kill) may run twice.
    expect(twice.length).toBeLessThanOrEqual(3 * 8);
    expect(Math.max(...counts.values())).toBeLessThanOrEqual(2);

    const cleanOut = join(dir, "clean-result.json");
    const clean = startChild(["-", join(dir, "clean-calls.txt"), cleanOut, String(n)]);
    expect(await exited(clean)).toBe(0);
    const reference = await BenchmarkResult.load(cleanOut);
    expect(strip(resumed)).toEqual(strip(reference));
    expect(resumed.status).toEqual(reference.status);
    expect(resumed.summary.exact).toEqual(reference.summary.exact);
  }, 120_000);

  it("keeps a journal readable when another process appends to it while the first is writing", async () => {
    // The first run used to write at its own file offset (not in append mode): the second run's
    // lines were overwritten mid-line and the journal could no longer be resumed. (Within one
    // process a second run on the journal is refused; across processes nothing stops it.)
    const n = 4000;
    const journal = join(dir, "shared.jsonl");
    const calls = join(dir, "shared-calls.txt");
    await writeFile(calls, "");
    const callCount = () => countCalls(calls);
    const waitForCalls = async (count: number) => {
      while ((await callCount()) < count) await new Promise((r) => setTimeout(r, 2));
    };
    // The first holds its calls after the 50th until the go file exists; the second starts once
    // the first holds, and the first goes on once the second is calling too, so the two write
    // the journal at once however the machine schedules them.
    const go = join(dir, "shared-go");
    const first = startChild([
      journal,
      calls,
      join(dir, "shared-1.json"),
      String(n),
      "0",
      "50",
      go,
    ]);
    const firstDone = exited(first);
    await waitForCalls(50);
    const second = startChild([journal, calls, join(dir, "shared-2.json"), String(n)]);
    const secondDone = exited(second);
    await waitForCalls(100);
    await writeFile(go, "");
    expect(await Promise.all([firstDone, secondDone])).toEqual([0, 0]);
    // The two overlapped: the second ran samples the first was still running.
    expect(await callCount()).toBeGreaterThan(n);
    const lines = (await readFile(journal, "utf8")).trim().split("\n");
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
    // A third run finds every sample finished: it calls the target for none.
    const resumeCalls = join(dir, "shared-resume-calls.txt");
    await writeFile(resumeCalls, "");
    const third = startChild([journal, resumeCalls, join(dir, "shared-3.json"), String(n)]);
    expect(await exited(third)).toBe(0);
    expect(await readFile(resumeCalls, "utf8")).toBe("");
    expect((await BenchmarkResult.load(join(dir, "shared-3.json"))).samples).toHaveLength(n);
  }, 60_000);
});
