import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ConfigurationError } from "@fastrag/bench-core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { tempDir } from "./__fixtures__/helpers.js";
import { loadCorpus } from "./formats/corpus.js";
import { Predictions } from "./formats/predictions.js";
import { QADataset } from "./qa-dataset.js";
import { TrecRun } from "./trec/trec-run.js";

/** The only outcomes allowed: a value, or a ConfigurationError. */
async function datasetOrConfigurationError(load: () => Promise<unknown>): Promise<void> {
  try {
    await load();
  } catch (error) {
    if (!ConfigurationError.isInstance(error)) {
      throw new Error(`expected a dataset or a ConfigurationError, got ${String(error)}`, {
        cause: error,
      });
    }
  }
}

const SUFFIXES = [".json", ".jsonl", ".csv", ".tsv", ".yaml", ".parquet"];

// Values that real (and broken) eval files hold, under names the loaders look for.
const cell = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.oneof(fc.string(), fc.integer(), fc.constant(null)), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.oneof(fc.integer(), fc.string()), { maxKeys: 3 }),
);
const key = fc.oneof(
  fc.constantFrom(
    "id",
    "_id",
    "qid",
    "question",
    "query",
    "user_input",
    "answer",
    "answers",
    "ground_truth",
    "relevant_ids",
    "contexts",
    "relevance",
    "metadata",
    "__proto__",
    "constructor",
  ),
  fc.string({ maxLength: 6 }),
);
const record = fc.dictionary(key, cell, { maxKeys: 6 });

describe("fuzz: loaders give a dataset or a ConfigurationError, nothing else", () => {
  it("random bytes under every suffix", async () => {
    const dir = await tempDir("fuzz-");
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 300 }),
        fc.constantFrom(...SUFFIXES),
        async (bytes, suffix) => {
          const path = join(dir, `f${n++}${suffix}`);
          await writeFile(path, bytes);
          await datasetOrConfigurationError(() => QADataset.load(path));
          await datasetOrConfigurationError(() => loadCorpus(path));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("random text shaped like each format", async () => {
    const dir = await tempDir("fuzz-");
    let n = 0;
    const text = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.array(fc.string({ maxLength: 30 }), { maxLength: 8 }).map((rows) => rows.join("\n")),
      fc
        .array(fc.array(fc.string({ maxLength: 8 }), { maxLength: 4 }), { maxLength: 6 })
        .map((rows) => rows.map((r) => r.join(",")).join("\n")),
    );
    await fc.assert(
      fc.asyncProperty(
        text,
        fc.constantFrom(".json", ".jsonl", ".csv", ".yaml"),
        async (content, suffix) => {
          const path = join(dir, `t${n++}${suffix}`);
          await writeFile(path, content);
          await datasetOrConfigurationError(() => QADataset.load(path));
          await datasetOrConfigurationError(async () => TrecRun.parse(content));
          await datasetOrConfigurationError(async () => Predictions.fromJSON(safeParse(content)));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("random record shapes in every text format and in memory", async () => {
    const dir = await tempDir("fuzz-");
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(record, { maxLength: 5 }), async (records) => {
        await datasetOrConfigurationError(async () => QADataset.fromRecords(records));
        const base = join(dir, `r${n++}`);
        await writeFile(`${base}.json`, JSON.stringify({ samples: records }));
        await writeFile(`${base}.jsonl`, records.map((r) => JSON.stringify(r)).join("\n"));
        await writeFile(`${base}.yaml`, stringify(records));
        const columns = [...new Set(records.flatMap((r) => Object.keys(r)))];
        const csv = [columns, ...records.map((r) => columns.map((c) => JSON.stringify(r[c] ?? "")))]
          .map((row) => row.map((v) => `"${String(v).replaceAll('"', '""')}"`).join(","))
          .join("\n");
        await writeFile(`${base}.csv`, csv);
        for (const suffix of [".json", ".jsonl", ".yaml", ".csv"]) {
          await datasetOrConfigurationError(() => QADataset.load(`${base}${suffix}`));
        }
        await datasetOrConfigurationError(async () => Predictions.fromJSON(records));
      }),
      { numRuns: 200 },
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("a loaded dataset always holds well-formed samples", async () => {
    await fc.assert(
      fc.property(fc.array(record, { maxLength: 5 }), (records) => {
        let dataset: QADataset;
        try {
          dataset = QADataset.fromRecords(records);
        } catch (error) {
          return ConfigurationError.isInstance(error);
        }
        return dataset.samples.every(
          (s) =>
            typeof s.question === "string" &&
            s.question.trim().length > 0 &&
            s.expectedAnswers.every((a) => typeof a === "string") &&
            s.relevantIds.every((id) => typeof id === "string" && id.length > 0) &&
            (s.relevance === undefined ||
              Object.entries(s.relevance).every(([id, g]) => id !== "" && Number.isFinite(g))) &&
            (s.id === undefined || typeof s.id === "string"),
        );
      }),
      { numRuns: 500 },
    );
  });
});

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
