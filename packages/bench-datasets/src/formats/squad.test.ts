import { describe, expect, it } from "vitest";
import { sharedData } from "../../../../test-support/shared-data.js";
import { rejection, tempFile } from "../__fixtures__/helpers.js";
import { QADataset } from "../qa-dataset.js";

const data = (name: string) => sharedData(`squad-v2-sample/${name}`);

describe("SQuAD nested JSON through QADataset.load", () => {
  it("loads dev-v2.0.sample.json: 626 samples, 333 unanswerable, 87 paragraphs", async () => {
    const dataset = await QADataset.load(data("dev-v2.0.sample.json"));
    expect(dataset.length).toBe(626);
    expect(
      dataset.samples.filter((s) => s.expectedAnswers.length === 1 && s.expectedAnswers[0] === ""),
    ).toHaveLength(333);
    expect(new Set(dataset.samples.flatMap((s) => s.relevantIds)).size).toBe(87);
    expect(dataset.warnings).toEqual([]);
    expect(dataset.samples[0]).toEqual({
      id: "56ddde6b9a695914005b9628",
      question: "In what country is Normandy located?",
      expectedAnswers: ["France"],
      relevantIds: ["Normans#0"],
      metadata: { title: "Normans", is_impossible: false },
    });
    const second = dataset.samples[1]!;
    expect(second.expectedAnswers).toEqual([
      "10th and 11th centuries",
      "in the 10th and 11th centuries",
    ]);
    const last = dataset.samples[625]!;
    expect(last.id).toBe("5ad572b15b96ef001a10af0a");
    expect(last.relevantIds).toEqual(["Computational_complexity_theory#47"]);
    expect(last.expectedAnswers).toEqual([""]);
    expect(last.metadata).toEqual({
      title: "Computational_complexity_theory",
      is_impossible: true,
    });
  });

  it("names the path of a malformed question or answer", async () => {
    const doc = (qa: unknown) =>
      JSON.stringify({
        version: "v2.0",
        data: [{ title: "T", paragraphs: [{ context: "c", qas: [qa] }] }],
      });
    const empty = await tempFile("squad.json", doc({ id: "x", question: "", answers: [] }));
    expect((await rejection(QADataset.load(empty))).message).toBe(
      `${empty}: data[0].paragraphs[0].qas[0], column "question": expected a question (a non-empty string), found the string ""`,
    );
    const badAnswer = await tempFile(
      "squad.json",
      doc({ id: "x", question: "q", answers: [{ answer_start: 1 }] }),
    );
    expect((await rejection(QADataset.load(badAnswer))).message).toBe(
      `${badAnswer}: data[0].paragraphs[0].qas[0].answers[0].text: expected a string, found undefined`,
    );
  });

  it("refuses two articles of one title, whose paragraph ids would be the same", async () => {
    const article = (context: string, id: string) => ({
      title: "Apple",
      paragraphs: [
        { context, qas: [{ id, question: `${id}?`, answers: [{ text: "x", answer_start: 0 }] }] },
      ],
    });
    const path = await tempFile(
      "squad.json",
      JSON.stringify({
        version: "v2.0",
        data: [article("the company", "a"), article("the fruit", "b")],
      }),
    );
    expect((await rejection(QADataset.load(path))).message).toBe(
      `${path}: data[1].title: "Apple" is also the title of data[0]; paragraph ids are "<title>#<index>", so both articles' paragraphs would have the same ids. Give the articles distinct titles`,
    );
  });
});
