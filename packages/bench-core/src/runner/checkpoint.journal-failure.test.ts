import { cp, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { mountSmallDisk } from "../__fixtures__/small-disk.js";
import { Benchmark } from "../benchmark.js";
import type { BenchmarkResult } from "../benchmark-result.js";
import { ConfigurationError } from "../errors.js";
import { JournalWriteError } from "../run-errors.js";
import type { EvalSample, Metric, QueryEngine } from "../types.js";

// The journal's writes, stubbed: a disk that takes `whole` more write calls in full, then writes
// `torn` bytes of the next (a short write) and fails the one after with ENOSPC, as a full disk
// does. Each journal line is one call when nothing is short. Unlimited by default.
const disk = vi.hoisted(() => ({ whole: Number.POSITIVE_INFINITY, torn: 0, tornDone: false }));
vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs")>();
  const writeSync = (fd: number, buffer: Uint8Array, offset: number, length: number): number => {
    if (disk.whole > 0) {
      disk.whole--;
      return fs.writeSync(fd, buffer, offset, length);
    }
    if (!disk.tornDone && disk.torn > 0) {
      disk.tornDone = true;
      return fs.writeSync(fd, buffer, offset, Math.min(length, disk.torn));
    }
    throw Object.assign(new Error("ENOSPC: no space left on device, write"), {
      code: "ENOSPC",
      errno: -28,
      syscall: "write",
    });
  };
  return { ...fs, default: { ...fs, writeSync }, writeSync };
});

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "fastrag-journal-failure-"));
});
beforeEach(() => {
  room(Number.POSITIVE_INFINITY, 0);
});

/** Room for the header and `lines` whole sample lines, then `torn` bytes of the next. */
function room(lines: number, torn: number): void {
  disk.whole = lines + 1;
  disk.torn = torn;
  disk.tornDone = false;
}

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

/** A target recording the ids it was called with, in order. */
function recording(calls: string[], onCall?: () => void): QueryEngine {
  return {
    async query(_q, { sample }) {
      calls.push(sample.id as string);
      onCall?.();
      return { answer: sample.expectedAnswers[0] as string };
    },
  };
}

describe("a journal write that fails", () => {
  it("stops the run at once: no new sample starts, and every finished one is kept", async () => {
    const path = join(dir, "stops.jsonl");
    room(5, 30);
    const calls: string[] = [];
    const b = new Benchmark({ dataset: samples, metrics: [exact], maxConcurrent: 1 });
    const error = await b
      .run(recording(calls), { name: "full", checkpoint: path })
      .catch((e: unknown) => e);
    expect(JournalWriteError.isInstance(error), String(error)).toBe(true);
    expect(ConfigurationError.isInstance(error)).toBe(true);
    const e = error as JournalWriteError<BenchmarkResult>;
    expect(e.message).toBe(
      `${path}: cannot write the checkpoint journal: no space left on the device (ENOSPC); the run stopped at once, with 14 of 20 samples not run. Nothing finished is lost: 5 finished samples are kept in ${path}, and a run with the same checkpoint resumes from them (the 1 sample whose line could not be written is in this error's partial result only); or pass continueWithoutJournal: true to go on without a journal`,
    );
    expect((e.cause as { code?: string }).code).toBe("ENOSPC");
    expect(e.path).toBe(path);
    // The 6th sample ran (its line failed); none after it was started.
    expect(calls).toEqual(["q0", "q1", "q2", "q3", "q4", "q5"]);
    expect(e.partial.samples.map((s) => s.sampleId)).toEqual(calls);

    // Once the disk has room, the same checkpoint resumes: the torn line is dropped with a
    // warning naming its sample, and only the samples the journal lacks are run.
    room(Number.POSITIVE_INFINITY, 0);
    const warnings: string[] = [];
    const again: string[] = [];
    const result = await b.run(recording(again), {
      name: "full",
      checkpoint: path,
      onWarning: (m) => warnings.push(m),
    });
    expect(again).toEqual(samples.slice(5).map((s) => s.id));
    expect(result.samples.map((s) => s.sampleId)).toEqual(samples.map((s) => s.id));
    expect(warnings).toEqual([
      `${path}:7: dropped the last line, cut short by an interrupted write (30 bytes); it held sample index 5 (id "q5"), which runs again`,
    ]);
  });

  it("lets the samples in flight settle, and starts none after the failure", async () => {
    const path = join(dir, "in-flight.jsonl");
    room(3, 10);
    const calls: string[] = [];
    const b = new Benchmark({ dataset: samples, metrics: [exact], maxConcurrent: 4 });
    const error = (await b
      .run(recording(calls), { name: "full", checkpoint: path })
      .catch((e: unknown) => e)) as JournalWriteError<BenchmarkResult>;
    expect(JournalWriteError.isInstance(error)).toBe(true);
    // 4 lines were attempted when the 4th failed; at most the 3 others in flight then finish.
    expect(calls.length).toBeGreaterThanOrEqual(4);
    expect(calls.length).toBeLessThanOrEqual(4 + 3);
    expect(error.partial.samples).toHaveLength(calls.length);
    expect(error.message).toContain(`3 finished samples are kept in ${path}`);
  });

  it("with continueWithoutJournal, warns at once and goes on to the end", async () => {
    const path = join(dir, "goes-on.jsonl");
    room(5, 30);
    const calls: string[] = [];
    const warnedAt: number[] = [];
    const warnings: string[] = [];
    const b = new Benchmark({ dataset: samples, metrics: [exact], maxConcurrent: 1 });
    const result = await b.run(recording(calls), {
      name: "full",
      checkpoint: path,
      continueWithoutJournal: true,
      onWarning: (m) => {
        warnings.push(m);
        warnedAt.push(calls.length);
      },
    });
    expect(result.samples).toHaveLength(20);
    expect(calls).toHaveLength(20);
    expect(warnings).toEqual([
      `${path}: cannot write the checkpoint journal: no space left on the device (ENOSPC); going on without a journal (continueWithoutJournal): 5 finished samples are in it, and those from here on only in the run's result, so a crash from now on loses them`,
    ]);
    // Said when it happened (the 6th sample's line), not at the end of the run.
    expect(warnedAt).toEqual([6]);
  });

  it("with trials, counts what the journal keeps in samples: finished ones, and trials of unfinished ones", async () => {
    // trials: 3, one at a time, sample by sample: lines s0t0 s0t1 s0t2 s1t0 s1t1 s1t2 s2t0 fit;
    // the 8th (s2t1) fails. s2 is not finished, so the partial result holds s0 and s1 only.
    const path = join(dir, "trials-unfinished.jsonl");
    room(7, 0);
    const calls: string[] = [];
    const b = new Benchmark({ dataset: samples, metrics: [exact], maxConcurrent: 1 });
    const error = (await b
      .run(recording(calls), { name: "t", checkpoint: path, trials: 3 })
      .catch((e: unknown) => e)) as JournalWriteError<BenchmarkResult>;
    expect(JournalWriteError.isInstance(error), String(error)).toBe(true);
    expect(error.message).toBe(
      `${path}: cannot write the checkpoint journal: no space left on the device (ENOSPC); the run stopped at once, with 18 of 20 samples not run. Nothing finished is lost: 2 finished samples and 1 trial of 1 unfinished one are kept in ${path}, and a run with the same checkpoint resumes from them; or pass continueWithoutJournal: true to go on without a journal`,
    );
    expect(calls).toEqual(["q0", "q0", "q0", "q1", "q1", "q1", "q2", "q2"]);
    expect(error.partial.samples.map((s) => s.sampleId)).toEqual(["q0", "q1"]);

    // 8 lines fit: s2's last trial (the 9th line) fails, but it finishes s2, which the partial
    // result holds; the journal keeps s2's first two trials.
    const last = join(dir, "trials-last.jsonl");
    room(8, 0);
    const calls2: string[] = [];
    const error2 = (await b
      .run(recording(calls2), { name: "t", checkpoint: last, trials: 3 })
      .catch((e: unknown) => e)) as JournalWriteError<BenchmarkResult>;
    expect(error2.message).toBe(
      `${last}: cannot write the checkpoint journal: no space left on the device (ENOSPC); the run stopped at once, with 17 of 20 samples not run. Nothing finished is lost: 2 finished samples and 2 trials of 1 unfinished one are kept in ${last}, and a run with the same checkpoint resumes from them (the 1 sample with a trial whose line could not be written is in this error's partial result only); or pass continueWithoutJournal: true to go on without a journal`,
    );
    expect(error2.partial.samples.map((s) => s.sampleId)).toEqual(["q0", "q1", "q2"]);

    // The resume runs what the journal lacks: s2's third trial, and 3 trials of each of the 17
    // samples after it.
    room(Number.POSITIVE_INFINITY, 0);
    const again: string[] = [];
    const result = await b.run(recording(again), {
      name: "t",
      checkpoint: last,
      trials: 3,
      onWarning: () => {},
    });
    expect(again).toHaveLength(1 + 17 * 3);
    expect(again[0]).toBe("q2");
    expect(result.samples).toHaveLength(20);
  });

  it("with trials and continueWithoutJournal, says what the journal keeps in samples and trials", async () => {
    const path = join(dir, "trials-goes-on.jsonl");
    room(4, 0);
    const warnings: string[] = [];
    const b = new Benchmark({ dataset: samples, metrics: [exact], maxConcurrent: 1 });
    const result = await b.run(recording([]), {
      name: "t",
      checkpoint: path,
      trials: 2,
      continueWithoutJournal: true,
      onWarning: (m) => warnings.push(m),
    });
    expect(result.samples).toHaveLength(20);
    // 4 lines of 2 trials each: s0 and s1 finished, nothing of s2.
    expect(warnings).toEqual([
      `${path}: cannot write the checkpoint journal: no space left on the device (ENOSPC); going on without a journal (continueWithoutJournal): 2 finished samples are in it, and those from here on only in the run's result, so a crash from now on loses them`,
    ]);
  });

  it("refuses a continueWithoutJournal or onWarning of the wrong type before any sample runs", async () => {
    const b = new Benchmark({ dataset: samples, metrics: [exact] });
    const calls: string[] = [];
    await expect(
      b.run(recording(calls), { name: "x", continueWithoutJournal: "yes" as never }),
    ).rejects.toThrow(
      'Benchmark.run: continueWithoutJournal must be true or false, found the string "yes"',
    );
    await expect(b.run(recording(calls), { name: "x", onWarning: 1 as never })).rejects.toThrow(
      "Benchmark.run: onWarning must be a function (message) => void, found the number 1",
    );
    expect(calls).toEqual([]);
  });
});

describe("a journal on a full disk (a 64 KiB tmpfs)", () => {
  it("stops with ENOSPC; the journal, copied to a disk with room, resumes with no sample run twice", async (ctx) => {
    const small = await mountSmallDisk("64k");
    if (typeof small === "string") return ctx.skip(small);
    try {
      const many: EvalSample[] = Array.from({ length: 200 }, (_, i) => ({
        id: `q${i}`,
        question: `question ${i}`,
        expectedAnswers: [`answer ${i} ${"w".repeat(1000)}`],
        relevantIds: [],
      }));
      const path = join(small.dir, "run.jsonl");
      const calls: string[] = [];
      const b = new Benchmark({ dataset: many, metrics: [exact], maxConcurrent: 2 });
      const error = (await b
        .run(recording(calls), { name: "big", checkpoint: path })
        .catch((e: unknown) => e)) as JournalWriteError<BenchmarkResult>;
      expect(JournalWriteError.isInstance(error), String(error)).toBe(true);
      expect(error.message).toMatch(
        /no space left on the device \(ENOSPC\); the run stopped at once/,
      );
      expect(calls.length).toBeLessThan(100);
      const moved = join(dir, "moved.jsonl");
      await cp(path, moved);
      const again: string[] = [];
      const result = await b.run(recording(again), {
        name: "big",
        checkpoint: moved,
        onWarning: () => {},
      });
      expect(result.samples).toHaveLength(200);
      const journaled = Number(/(\d+) finished samples are kept/.exec(error.message)?.[1]);
      expect(again).toHaveLength(200 - journaled);
      expect(new Set(again).size).toBe(again.length);
    } finally {
      await small.remove();
    }
  });
});
