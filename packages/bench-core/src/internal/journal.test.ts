import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigurationError } from "../errors.js";
import type { JournalHeader } from "./journal.js";
import { readJournal } from "./journal-read.js";
import { JournalWriter } from "./journal-writer.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "fastrag-journal-writer-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const header: JournalHeader = {
  name: "run",
  fingerprint: "f",
  size: 3,
  metrics: ["exact"],
  shard: null,
};

describe("JournalWriter.open", () => {
  it("refuses to start a journal another process created after this one read it as missing", async () => {
    // The window the CLI's lock and the same-process claim cannot close: another process creates
    // the journal between this run's read (no file) and its exclusive create.
    const path = join(dir, "raced.jsonl");
    const recovered = await readJournal(path, header);
    expect(recovered.exists).toBe(false);
    const theirs = '{"journal":"other run"}\n';
    await writeFile(path, theirs);
    const opening = JournalWriter.open(path, header, recovered);
    await expect(opening).rejects.toBeInstanceOf(ConfigurationError);
    await expect(opening).rejects.toThrow(
      `${path}: another run created this checkpoint journal while this one was starting`,
    );
    // Theirs is left as it was: not truncated, no second header.
    expect(await readFile(path, "utf8")).toBe(theirs);
  });

  it("creates a missing journal with its header line", async () => {
    const path = join(dir, "new.jsonl");
    const writer = await JournalWriter.open(path, header, await readJournal(path, header));
    await writer.close();
    const lines = (await readFile(path, "utf8")).trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      name: "run",
      dataset_fingerprint: "f",
      dataset_size: 3,
      metrics: ["exact"],
      shard: null,
    });
  });
});
