import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigurationError, type EvalSample } from "@fastrag/bench-core";
import { describe, expect, it } from "vitest";
import { sharedData } from "../../../../test-support/shared-data.js";
import { Predictions } from "./predictions.js";

const data = (name: string) => sharedData(`squad-v2-sample/${name}`);

const signal = new AbortController().signal;
const sample = (question: string, id?: string): EvalSample => ({
  ...(id === undefined ? {} : { id }),
  question,
  expectedAnswers: [],
  relevantIds: [],
});

async function tempFile(name: string, text: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "predictions-"));
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

describe("Predictions", () => {
  it("answers SQuAD prediction files by sample id", async () => {
    const engine = await Predictions.load(data("predictions/nlnet.json"));
    expect(engine.size).toBe(626);
    const q = "In what country is Normandy located?";
    await expect(
      engine.query(q, { signal, sample: sample(q, "56ddde6b9a695914005b9628") }),
    ).resolves.toEqual({
      answer: "France",
    });
    // An empty string is a prediction ("no answer"), not a missing one.
    await expect(
      engine.query("x", { signal, sample: sample("x", "56ddde6b9a695914005b962a") }),
    ).resolves.toEqual({ answer: "" });
  });

  it("rejects with 'no prediction for …' for a sample the file lacks", async () => {
    const engine = await Predictions.load(data("predictions/nlnet.json"));
    await expect(
      engine.query("Who?", { signal, sample: sample("Who?", "missing-id") }),
    ).rejects.toThrow(/no prediction for sample "missing-id"/);
    await expect(engine.query("Who?", { signal, sample: sample("Who?") })).rejects.toThrow(
      /no prediction for question "Who\?"/,
    );
  });

  it("reads JSONL records by id or by question, with retrieved ids as chunks", async () => {
    const path = await tempFile(
      "p.jsonl",
      [
        '{"id": "a", "answer": "Paris", "retrieved_ids": ["d1", 7]}',
        "",
        '{"question": "Capital of Italy?", "answer": "Rome"}',
      ].join("\n"),
    );
    const engine = await Predictions.load(path);
    expect(engine.size).toBe(2);
    await expect(
      engine.query("ignored", { signal, sample: sample("ignored", "a") }),
    ).resolves.toEqual({
      answer: "Paris",
      chunks: [{ id: "d1" }, { id: "7" }],
    });
    await expect(
      engine.query("Capital of Italy?", { signal, sample: sample("Capital of Italy?", "zzz") }),
    ).resolves.toEqual({ answer: "Rome" });
  });

  it("refuses a question answered twice without ids at query time", async () => {
    const engine = Predictions.fromJSON([
      { question: "q", answer: "1" },
      { question: "q", answer: "2" },
    ]);
    await expect(engine.query("q", { signal, sample: sample("q") })).rejects.toThrow(
      /two predictions/,
    );
  });

  it("rejects malformed files with a ConfigurationError naming the place", async () => {
    const bad = await tempFile("p.jsonl", '{"id": "a", "answer": "x"}\n{"id": "b", "answer": 3}\n');
    await expect(Predictions.load(bad)).rejects.toThrow(
      /p\.jsonl: line 2, column "answer": expected the predicted answer/,
    );
    const broken = await tempFile("p.jsonl", '{"id": "a", "answer": "x"}\n{"id": "b", \n');
    await expect(Predictions.load(broken)).rejects.toThrow(/line 2, column 13: invalid JSON/);
    expect(() => Predictions.fromJSON({ q1: null }, "p.json")).toThrow(/p\.json: key "q1"/);
    expect(() => Predictions.fromJSON([{ answer: "x" }], "p.json")).toThrow(/"id" or a "question"/);
    try {
      Predictions.fromJSON(42);
    } catch (error) {
      expect(ConfigurationError.isInstance(error)).toBe(true);
    }
  });
});
