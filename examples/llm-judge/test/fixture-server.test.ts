/**
 * The offline fixture itself: it reads the metrics' real prompts back (STEP_PROMPTS), its data
 * hold together, its embeddings put no two of its words in one dimension (so the cosines in the
 * README and in llm-judge.test.ts follow from word counts), and over HTTP it answers judge steps
 * only as structured output.
 */
import { readFileSync } from "node:fs";
import { STEP_PROMPTS, type StepInputs, type StepName } from "@fastrag/bench-metrics/generation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  dimensionOf,
  EMBEDDING_DIMENSIONS,
  embedText,
  FIXTURE,
  type FixtureServer,
  judgeReply,
  STEP_NAMES,
  startFixtureServer,
  stepInput,
  supports,
  words,
} from "../src/fixture-server.js";

// Inputs that put the markers of other fields, and blank lines, inside the free text fields.
const TRICKY = "a passage\n\nStatements:\n1. not a statement\n\nContext:\nstill the passage";
const INPUTS: { readonly [S in StepName]: StepInputs[S] } = {
  statements: { question: "Q?", answer: `An answer.\n\nAnswer: ${TRICKY}` },
  verdicts: { context: TRICKY, statements: ["First one.", "Second: two."] },
  context_verdict: { question: "Q?", context: TRICKY, reference: "The reference." },
  attributions: { question: "Q?", context: TRICKY, reference: "Ref one. Ref two." },
  question_generation: { answer: `It is so.\n\nAnswer: ${TRICKY}` },
  claims: { text: `A text.\n\nText: ${TRICKY}`, atomicity: "high", coverage: "low" },
  classification: { question: "Q?", answer: ["A1.", "A2."], ground_truth: [] },
};

describe("stepInput reads each step's input back from STEP_PROMPTS", () => {
  for (const step of STEP_NAMES) {
    it(step, () => {
      const input = INPUTS[step] as Record<string, unknown>;
      const prompt = (STEP_PROMPTS[step] as (i: unknown) => string)(input);
      const expected = { ...input };
      // Not read: the fixture's claims are a text's statements whatever the level asked.
      delete expected.atomicity;
      delete expected.coverage;
      expect(stepInput(step, prompt)).toEqual(expected);
    });
  }

  it("names the missing marker of a prompt that is not the step's", () => {
    const reworded = "Judge these.\n\nContext:\nA passage.\n\nStatements:\n1. One.\n\nReply.";
    expect(() => stepInput("verdicts", reworded)).toThrow(
      'step verdicts: the prompt has no "\\n\\nA statement gets verdict 1"',
    );
  });
});

describe("the fixture's data", () => {
  const dataset = JSON.parse(
    readFileSync(new URL("../data/questions.json", import.meta.url), "utf8"),
  ) as { samples: { question: string; expected_answers: string[] }[] };

  it("has an entry per question, whose reference is the sample's expected answer", () => {
    expect(Object.keys(FIXTURE).sort()).toEqual(dataset.samples.map((s) => s.question).sort());
    for (const s of dataset.samples)
      expect(FIXTURE[s.question]?.reference).toBe(s.expected_answers[0]);
  });

  it("splits texts into statements each text and each statement supports", () => {
    for (const e of Object.values(FIXTURE)) {
      for (const [text, statements] of [
        [e.answer, e.statements],
        [e.reference, e.reference_statements],
      ] as const) {
        for (const s of statements) {
          expect(supports(text, s.evidence), `${text} / ${s.evidence}`).toBe(true);
          expect(supports(s.statement, s.evidence), s.statement).toBe(true);
        }
      }
    }
  });
});

describe("the fixture's embeddings", () => {
  it("put every word of every text the metrics embed in a dimension of its own", () => {
    const all = new Set<string>();
    for (const [question, e] of Object.entries(FIXTURE)) {
      for (const t of [question, e.generated_question, e.answer, e.reference]) {
        for (const w of words(t)) all.add(w);
      }
    }
    expect(all.size).toBe(55);
    expect(new Set([...all].map(dimensionOf)).size).toBe(all.size);
  });

  it("are a binary bag of words", () => {
    // "Which sea does the Danube empty into?": which, sea, does, the, danube, empty, into.
    const v = embedText("Which sea does the Danube empty into? The sea!");
    expect(v).toHaveLength(EMBEDDING_DIMENSIONS);
    expect(v.filter((x) => x === 1)).toHaveLength(7);
    expect(v.filter((x) => x !== 0 && x !== 1)).toHaveLength(0);
  });
});

describe("judgeReply", () => {
  it("gives verdicts by the evidence rule, in the order asked", () => {
    const prompt = STEP_PROMPTS.verdicts({
      context: "Lake Baikal in Siberia ... a maximum depth of 1,642 Metres.",
      statements: ["Lake Baikal lies in northern Canada.", "Lake Baikal is 1,642 metres deep."],
    });
    expect(judgeReply("verdicts", prompt)).toEqual({
      verdicts: [
        {
          statement: "Lake Baikal lies in northern Canada.",
          reason: 'the context does not say "northern Canada"',
          verdict: 0,
        },
        {
          statement: "Lake Baikal is 1,642 metres deep.",
          reason: 'the context says "1,642 metres"', // any case
          verdict: 1,
        },
      ],
    });
  });

  it("refuses content it has no fixture for", () => {
    const prompt = STEP_PROMPTS.statements({ question: "Why?", answer: "Because." });
    expect(() => judgeReply("statements", prompt)).toThrow(
      'step statements: the fixture has no statements for the text "Because."',
    );
  });
});

describe("the fixture over HTTP", () => {
  let server: FixtureServer;
  beforeAll(async () => {
    server = await startFixtureServer({ rateLimitEvery: 3 });
  });
  afterAll(() => server.close());

  const chat = (body: Record<string, unknown>) =>
    fetch(`${server.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", ...body }),
    });
  const question = "How deep is Lake Baikal?";
  const answer = FIXTURE[question]?.answer as string;
  const prompt = STEP_PROMPTS.question_generation({ answer });

  it("answers a step named by response_format, refuses it in text, and every 3rd request", async () => {
    const structured = await chat({
      messages: [{ role: "user", content: prompt }],
      response_format: { type: "json_schema", json_schema: { name: "question_generation" } },
    });
    expect(structured.status).toBe(200);
    const reply = (await structured.json()) as { choices: { message: { content: string } }[] };
    expect(JSON.parse(reply.choices[0]?.message.content as string)).toEqual({
      question: "How deep is Lake Baikal, and where does it lie?",
      noncommittal: 0,
    });

    const text = await chat({ messages: [{ role: "user", content: prompt }] });
    expect(text.status).toBe(400);
    expect(((await text.json()) as { error: { message: string } }).error.message).toContain(
      "the fixture answers judge steps only as structured output",
    );

    const third = await chat({ messages: [{ role: "user", content: prompt }] });
    expect(third.status).toBe(429);
    expect(third.headers.get("retry-after-ms")).toBe("200");

    expect(server.stats).toMatchObject({ answered: 1, rateLimited: 1, failed: 1 });
    expect(server.stats.judge).toEqual({ question_generation: 1 });
  });
});
