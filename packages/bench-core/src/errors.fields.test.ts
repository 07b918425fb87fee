import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Benchmark } from "./benchmark.js";
import { ConfigurationError } from "./errors.js";
import { decodeUtf8 } from "./internal/text.js";
import { JournalWriteError } from "./run-errors.js";
import { fakeDataset, fakeEngine } from "./testing.js";
import type { Metric } from "./types.js";

const constant: Metric = {
  name: "one",
  higherIsBetter: true,
  needsRelevantIds: false,
  needsAnswer: false,
  score: () => 1,
};

async function thrown(run: () => unknown): Promise<ConfigurationError> {
  try {
    await run();
  } catch (error) {
    if (ConfigurationError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a ConfigurationError");
}

describe("ConfigurationError's fields", () => {
  it("leaves `code` to system errors, so a cause-chain walker looking for ENOENT skips it", () => {
    const error = new ConfigurationError("x: cannot read", { kind: "unreadable-file" });
    expect((error as { code?: unknown }).code).toBeUndefined();
  });

  it("defaults to invalid-input with no place, and keeps the cause", () => {
    const root = new Error("root");
    const error = new ConfigurationError("bad", { cause: root });
    expect(error.kind).toBe("invalid-input");
    expect(error.cause).toBe(root);
    expect(error.path).toBeUndefined();
    expect(Object.keys(error)).not.toContain("path");
  });

  it("names the option a run refuses", async () => {
    const b = new Benchmark({ dataset: fakeDataset(1), metrics: [constant] });
    const timeout = await thrown(() => b.run(fakeEngine(), { name: "r", timeoutMs: -5 }));
    expect(timeout).toMatchObject({ kind: "invalid-option", option: "timeoutMs" });
    const retries = await thrown(() =>
      b.run(fakeEngine(), {
        name: "r",
        retries: { attempts: 2, retryOn: () => true, backoffMs: -1 },
      }),
    );
    expect(retries).toMatchObject({ kind: "invalid-option", option: "retries.backoffMs" });
    const target = await thrown(() => b.run({ answer: "no" } as never, { name: "r" }));
    expect(target.kind).toBe("unsupported-target");
  });

  it("names the rateLimit field a Benchmark refuses", async () => {
    const bad = (rateLimit: unknown) => () =>
      new Benchmark({
        dataset: fakeDataset(1),
        metrics: [constant],
        rateLimit: rateLimit as never,
      });
    expect(await thrown(bad(5))).toMatchObject({ kind: "invalid-option", option: "rateLimit" });
    expect(await thrown(bad({ requestsPerMinute: 0 }))).toMatchObject({
      kind: "invalid-option",
      option: "rateLimit.requestsPerMinute",
    });
    expect(await thrown(bad({ rpm: 60 }))).toMatchObject({
      kind: "invalid-option",
      option: "rateLimit.rpm",
    });
    expect(await thrown(bad({ maxWaits: -1 }))).toMatchObject({ option: "rateLimit.maxWaits" });
  });

  it("gives a journal that cannot be written the kind unwritable-file, with its path", () => {
    const cause = Object.assign(new Error("no space"), { code: "ENOSPC" });
    const journaled = { finishedSamples: 2, unfinishedTrials: 0, unfinishedSamples: 0 };
    const error = new JournalWriteError({
      message: "full",
      path: "/tmp/run.journal",
      partial: [],
      cause,
      samplesInRun: 5,
      samplesNotRun: 2,
      journaled,
      unjournaledSamples: 1,
    });
    expect(error).toMatchObject({
      kind: "unwritable-file",
      path: "/tmp/run.journal",
      samplesInRun: 5,
      samplesNotRun: 2,
      journaled,
      unjournaledSamples: 1,
    });
    expect(error.cause).toBe(cause);
    expect(ConfigurationError.isInstance(error)).toBe(true);
  });

  it("places invalid UTF-8 by path, line and column", () => {
    // Line 2 is "ab\xff": the bad byte is its third.
    const bytes = Uint8Array.from([0x78, 0x0a, 0x61, 0x62, 0xff, 0x0a]);
    let error: unknown;
    try {
      decodeUtf8(bytes, "data.jsonl");
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ path: "data.jsonl", line: 2, column: 3 });
    expect((error as Error).message).toBe(
      "data.jsonl: line 2, column 3: invalid UTF-8 at byte 4 (found 0xff); expected a UTF-8 text file",
    );
  });

  it("says a checkpoint journal of another run is unusable, naming it and its line", async () => {
    const dir = process.env.TMPDIR ?? "/tmp";
    const journal = join(dir, `fields-${process.pid}-${Date.now()}.journal`);
    await writeFile(journal, "not json\n");
    const b = new Benchmark({ dataset: fakeDataset(1), metrics: [constant] });
    const error = await thrown(() => b.run(fakeEngine(), { name: "r", checkpoint: journal }));
    expect(error).toMatchObject({ kind: "journal-unusable", path: journal });
  });
});
