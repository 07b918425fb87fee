// The judge steps of DESIGN §11: each step's input, reply schema, built-in prompt and the checks
// a reply must pass beyond its schema (verdicts that answer the statements asked about).
import type { JsonSchema } from "@fastrag/bench-core";

/** The names of the judge steps (DESIGN §11). */
export type StepName =
  | "statements"
  | "verdicts"
  | "context_verdict"
  | "attributions"
  | "question_generation"
  | "claims"
  | "classification";

/** Each step's structured input, as the judge receives it in `options.input`. */
export interface StepInputs {
  readonly statements: { readonly question: string; readonly answer: string };
  readonly verdicts: { readonly context: string; readonly statements: readonly string[] };
  readonly context_verdict: {
    readonly question: string;
    readonly context: string;
    readonly reference: string;
  };
  readonly attributions: {
    readonly question: string;
    readonly context: string;
    readonly reference: string;
  };
  readonly question_generation: { readonly answer: string };
  readonly claims: {
    readonly text: string;
    readonly atomicity: "low" | "high";
    readonly coverage: "low" | "high";
  };
  readonly classification: {
    readonly question: string;
    readonly answer: readonly string[];
    readonly ground_truth: readonly string[];
  };
}

/** A verdict on one statement. */
export interface Verdict {
  readonly statement: string;
  readonly reason: string;
  readonly verdict: 0 | 1;
}

/** An attribution of one reference sentence. */
export interface Attribution {
  readonly statement: string;
  readonly reason: string;
  readonly attributed: 0 | 1;
}

/** A classified statement. */
export interface Classified {
  readonly statement: string;
  readonly reason: string;
}

/** Each step's reply, after its schema and checks passed. */
export interface StepReplies {
  readonly statements: { readonly statements: readonly string[] };
  readonly verdicts: { readonly verdicts: readonly Verdict[] };
  readonly context_verdict: { readonly reason: string; readonly verdict: 0 | 1 };
  readonly attributions: { readonly attributions: readonly Attribution[] };
  readonly question_generation: { readonly question: string; readonly noncommittal: 0 | 1 };
  readonly claims: { readonly claims: readonly string[] };
  readonly classification: {
    readonly TP: readonly Classified[];
    readonly FP: readonly Classified[];
    readonly FN: readonly Classified[];
  };
}

/** A custom prompt for a step: its input in, the prompt text out. */
export type StepPrompt<S extends StepName> = (input: StepInputs[S]) => string;

/** Custom prompts by step, for a metric's `prompts` option. */
export type StepPrompts = { readonly [S in StepName]?: StepPrompt<S> };

const BIT: JsonSchema = { type: "integer", enum: [0, 1] };
const STRING: JsonSchema = { type: "string" };
const STRINGS: JsonSchema = { type: "array", items: STRING };

function object(properties: Record<string, JsonSchema>): JsonSchema {
  return {
    type: "object",
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
  };
}

const CLASSIFIED = { type: "array", items: object({ statement: STRING, reason: STRING }) };

/** The JSON Schema of each step's reply (sent as structured output, and checked on every reply). */
export const STEP_SCHEMAS: { readonly [S in StepName]: JsonSchema } = {
  statements: object({ statements: STRINGS }),
  verdicts: object({
    verdicts: { type: "array", items: object({ statement: STRING, reason: STRING, verdict: BIT }) },
  }),
  context_verdict: object({ reason: STRING, verdict: BIT }),
  attributions: object({
    attributions: {
      type: "array",
      items: object({ statement: STRING, reason: STRING, attributed: BIT }),
    },
  }),
  question_generation: object({ question: STRING, noncommittal: BIT }),
  claims: object({ claims: STRINGS }),
  classification: object({ TP: CLASSIFIED, FP: CLASSIFIED, FN: CLASSIFIED }),
};

/**
 * The version of each built-in prompt: part of a step's key, so that a reworded prompt is not
 * answered from replies to the old one (in the cache, or kept judgments). Bump on any change.
 */
export const PROMPT_VERSIONS: { readonly [S in StepName]: string } = {
  statements: "statements/1",
  verdicts: "verdicts/1",
  context_verdict: "context_verdict/1",
  attributions: "attributions/1",
  question_generation: "question_generation/1",
  claims: "claims/1",
  classification: "classification/1",
};

function listed(items: readonly string[]): string {
  return items.length === 0 ? "(none)" : items.map((s, i) => `${i + 1}. ${s}`).join("\n");
}

function reply(shape: string): string {
  return `Reply with one JSON object and nothing else, shaped as:\n${shape}`;
}

/** The built-in prompts: our own words for the steps RAGAS defines. */
export const STEP_PROMPTS: { readonly [S in StepName]: StepPrompt<S> } = {
  statements: ({ question, answer }) => `Break an answer down into simple statements.

Question: ${question}
Answer: ${answer}

Take each sentence of the answer and rewrite it as one or more statements that can be read on
their own: replace every pronoun with what it refers to, keep one fact per statement, and add
nothing the answer does not say. An answer that states no fact gives no statement.

${reply('{"statements": ["<statement>", ...]}')}`,

  verdicts: ({
    context,
    statements,
  }) => `Decide, for each statement, whether the context supports it.

Context:
${context}

Statements:
${listed(statements)}

A statement gets verdict 1 when it can be directly inferred from the context alone, and 0 when
it cannot (the context contradicts it or does not say it). Do not use outside knowledge. Give one
entry per statement, in the order listed, repeating each statement word for word, with a short
reason.

${reply('{"verdicts": [{"statement": "<statement as listed>", "reason": "<why>", "verdict": 0 or 1}, ...]}')}`,

  context_verdict: ({
    question,
    context,
    reference,
  }) => `Decide whether a retrieved passage was useful for reaching an answer.

Question: ${question}
Answer to reach: ${reference}

Passage:
${context}

Verdict 1 when the passage gives information that helps arrive at the answer above, 0 when it
does not. Give a short reason first.

${reply('{"reason": "<why>", "verdict": 0 or 1}')}`,

  attributions: ({
    question,
    context,
    reference,
  }) => `Check which sentences of a reference answer the context accounts for.

Question: ${question}

Context:
${context}

Reference answer: ${reference}

Take each sentence of the reference answer in turn. Mark it attributed 1 when the context states
or directly implies it, 0 when it does not. Give one entry per sentence, in order, quoting the
sentence, with a short reason.

${reply('{"attributions": [{"statement": "<sentence>", "reason": "<why>", "attributed": 0 or 1}, ...]}')}`,

  question_generation: ({ answer }) => `Write the question that this answer answers.

Answer: ${answer}

Write one question that the answer responds to. Also say whether the answer is noncommittal:
1 when it is evasive, vague or ambiguous ("I don't know", "I'm not sure", "it depends" without
saying on what), 0 when it commits to an answer.

${reply('{"question": "<question>", "noncommittal": 0 or 1}')}`,

  claims: ({ text, atomicity, coverage }) => `Decompose a text into claims.

Text: ${text}

${
  atomicity === "high"
    ? "Split it into atomic claims: each claim states exactly one fact."
    : "Split it into claims at the level of its sentences: a claim may join closely tied facts."
}
${
  coverage === "high"
    ? "Cover every piece of information in the text, details included."
    : "Cover the main points of the text; leave out minor details."
}
Each claim must be understandable on its own (no pronouns that point outside it) and say only
what the text says.

${reply('{"claims": ["<claim>", ...]}')}`,

  classification: ({
    question,
    answer,
    ground_truth,
  }) => `Compare the statements of an answer with those of a reference answer.

Question: ${question}

Answer statements:
${listed(answer)}

Reference statements:
${listed(ground_truth)}

Sort the statements into three lists:
- TP: answer statements that the reference statements support;
- FP: answer statements that the reference statements do not support;
- FN: reference statements that no answer statement covers.
Every answer statement goes into exactly one of TP and FP, quoted word for word; FN quotes
reference statements. Give a short reason for each.

${reply('{"TP": [{"statement": "<statement>", "reason": "<why>"}, ...], "FP": [...], "FN": [...]}')}`,
};

/** Whitespace collapsed and case folded, for matching a statement the judge repeated. */
export function statementText(s: string): string {
  return s.normalize("NFC").replace(/\s+/g, " ").trim().toLowerCase();
}

/**
 * A `verdicts` reply put in the order of the statements asked about. The judge must answer each
 * statement once; its entries may come in another order and with case or spacing changed.
 *
 * @returns the verdicts in the order of `statements`, or a problem saying what does not match.
 */
export function alignVerdicts(
  statements: readonly string[],
  verdicts: readonly Verdict[],
): readonly Verdict[] | string {
  if (verdicts.length !== statements.length) {
    return `${verdicts.length} verdicts for the ${statements.length} statements asked about`;
  }
  let inOrder = true;
  for (let i = 0; i < statements.length; i++) {
    if (
      statementText((verdicts[i] as Verdict).statement) !== statementText(statements[i] as string)
    ) {
      inOrder = false;
      break;
    }
  }
  if (inOrder) return verdicts;
  const byText = new Map<string, Verdict[]>();
  for (const v of verdicts) {
    const key = statementText(v.statement);
    const list = byText.get(key);
    if (list === undefined) byText.set(key, [v]);
    else list.push(v);
  }
  const out: Verdict[] = [];
  for (const s of statements) {
    const v = byText.get(statementText(s))?.shift();
    if (v === undefined) {
      return `no verdict for the statement ${JSON.stringify(s)} (the verdicts must repeat the statements asked about)`;
    }
    out.push(v);
  }
  return out;
}

/**
 * The checks of a step's reply beyond its schema, on the input it answers: a problem, or
 * `undefined` when the reply is usable.
 */
export function replyProblem<S extends StepName>(
  step: S,
  input: StepInputs[S],
  value: StepReplies[S],
): string | undefined {
  switch (step) {
    case "verdicts": {
      const { statements } = input as StepInputs["verdicts"];
      const aligned = alignVerdicts(statements, (value as StepReplies["verdicts"]).verdicts);
      return typeof aligned === "string" ? aligned : undefined;
    }
    case "attributions": {
      const { reference } = input as StepInputs["attributions"];
      const n = (value as StepReplies["attributions"]).attributions.length;
      return n === 0 && reference.trim() !== ""
        ? "no attribution for a non-empty reference (expected one per sentence of the reference)"
        : undefined;
    }
    case "classification": {
      const { answer, ground_truth } = input as StepInputs["classification"];
      const { TP, FP, FN } = value as StepReplies["classification"];
      if (TP.length + FP.length !== answer.length) {
        return `TP and FP hold ${TP.length + FP.length} statements, expected each of the ${answer.length} answer statements once`;
      }
      if (FN.length > ground_truth.length) {
        return `FN holds ${FN.length} statements, more than the ${ground_truth.length} reference statements`;
      }
      return undefined;
    }
    default:
      return undefined;
  }
}
