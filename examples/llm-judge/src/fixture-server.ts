/**
 * The offline model: an OpenAI-compatible HTTP server on 127.0.0.1 (a random free port) that
 * answers from `data/fixture-replies.json`. It is a fixture, not a model: it reads no meaning.
 *
 * - `POST /v1/chat/completions` **without** `response_format` is the pipeline's own call (its
 *   prompt has a `<context>` block and ends with `Question: …`): the question's fixed `answer`.
 * - `POST /v1/chat/completions` **with** `response_format: {type: "json_schema", json_schema:
 *   {name}}` is a judge step (DESIGN §11): `name` says which (`aiJudge` sends the step's name as
 *   the schema's name), and the prompt's text says about what ({@link stepInput}). The reply is
 *   a JSON object of the step's schema, built by one rule ({@link supports}): a statement is
 *   supported by a text exactly when its evidence phrase appears in that text.
 * - `POST /v1/embeddings`: a binary bag of words per text ({@link embedText}).
 * - Every `rateLimitEvery`-th request (of any kind) is refused with HTTP 429 and
 *   `retry-after-ms: 200`, as a busy provider does; the client waits that long and sends it again.
 *
 * Anything else, a judge step asked in text (no `response_format`) included, is answered with an
 * HTTP 400 naming what the fixture did not recognize, so that a metric that asks for something the
 * fixture has no reply for fails loudly instead of being scored. Usage is counted as one token per
 * four characters of the messages and of the reply.
 */
import { appendFileSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { StepInputs, StepName, StepReplies } from "@fastrag/bench-metrics/generation";

/** A statement and the phrase that supports it wherever it appears. */
export interface Evidenced {
  readonly statement: string;
  readonly evidence: string;
}

/** What the fixture knows of one question (see `data/fixture-replies.json`). */
export interface FixtureEntry {
  readonly answer: string;
  readonly statements: readonly Evidenced[];
  readonly reference: string;
  readonly reference_statements: readonly Evidenced[];
  readonly generated_question: string;
}

/** The fixture's facts, by question. */
export const FIXTURE: Readonly<Record<string, FixtureEntry>> = (
  JSON.parse(readFileSync(new URL("../data/fixture-replies.json", import.meta.url), "utf8")) as {
    questions: Record<string, FixtureEntry>;
  }
).questions;

/** A request the fixture cannot answer: it becomes an HTTP 400 with this message. */
export class FixtureError extends Error {
  override readonly name = "FixtureError";
}

// What a text is, for the steps that get a text and must reply with its statements.
const BY_ANSWER = new Map<string, FixtureEntry>();
const STATEMENTS_OF = new Map<string, readonly Evidenced[]>();
const EVIDENCE = new Map<string, string>();
for (const entry of Object.values(FIXTURE)) {
  BY_ANSWER.set(entry.answer, entry);
  STATEMENTS_OF.set(entry.answer, entry.statements);
  STATEMENTS_OF.set(entry.reference, entry.reference_statements);
  for (const s of [...entry.statements, ...entry.reference_statements]) {
    EVIDENCE.set(s.statement, s.evidence);
  }
}

/** The fixture's one rule: `text` supports a statement when it contains its evidence phrase (any case). */
export function supports(text: string, evidence: string): boolean {
  return text.toLowerCase().includes(evidence.toLowerCase());
}

function statementsOf(text: string, step: string): readonly Evidenced[] {
  const found = STATEMENTS_OF.get(text);
  if (found === undefined) {
    throw new FixtureError(
      `step ${step}: the fixture has no statements for the text ${JSON.stringify(text)} (it knows each question's answer and reference)`,
    );
  }
  return found;
}

function evidenceOf(statement: string, step: string): string {
  const found = EVIDENCE.get(statement);
  if (found === undefined) {
    throw new FixtureError(
      `step ${step}: the fixture has no evidence phrase for the statement ${JSON.stringify(statement)}`,
    );
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// Reading a step's input back from its prompt.
//
// The metrics render each step's input into the built-in prompts (STEP_PROMPTS of
// @fastrag/bench-metrics/generation, packages/bench-metrics/src/generation/judge/steps.ts). Each
// field sits between two fixed markers of that prompt. A prompt has at most one field that holds
// free text of any shape (a retrieved passage, an answer); the fields before it are read from
// the left (first occurrence of each marker), the fields after it from the right (last
// occurrence), so the free field may hold any marker text, blank lines included. Lists are
// rendered as "1. …" lines (or "(none)"); their items are one line each. The test
// `test/fixture-server.test.ts` renders every step's prompt with STEP_PROMPTS and checks that
// this reads the same input back, so a reworded prompt fails there, not in a run.

/** The markers around each field of a step's prompt, and which field is the free one. */
const LAYOUT: {
  readonly [S in StepName]: {
    readonly markers: readonly string[];
    readonly fields: readonly string[];
    /** The fields rendered as numbered lists. */
    readonly lists?: readonly string[];
    readonly free: number;
  };
} = {
  statements: {
    markers: ["\nQuestion: ", "\nAnswer: ", "\n\nTake each sentence of the answer"],
    fields: ["question", "answer"],
    free: 1,
  },
  verdicts: {
    markers: ["\nContext:\n", "\n\nStatements:\n", "\n\nA statement gets verdict 1"],
    fields: ["context", "statements"],
    lists: ["statements"],
    free: 0,
  },
  context_verdict: {
    markers: ["\nQuestion: ", "\nAnswer to reach: ", "\n\nPassage:\n", "\n\nVerdict 1 when"],
    fields: ["question", "reference", "context"],
    free: 2,
  },
  attributions: {
    markers: [
      "\nQuestion: ",
      "\n\nContext:\n",
      "\n\nReference answer: ",
      "\n\nTake each sentence of the reference answer",
    ],
    fields: ["question", "context", "reference"],
    free: 1,
  },
  question_generation: {
    markers: ["\nAnswer: ", "\n\nWrite one question"],
    fields: ["answer"],
    free: 0,
  },
  claims: {
    markers: ["\nText: ", "\n\nSplit it into "],
    fields: ["text"],
    free: 0,
  },
  classification: {
    markers: [
      "\nQuestion: ",
      "\n\nAnswer statements:\n",
      "\n\nReference statements:\n",
      "\n\nSort the statements",
    ],
    fields: ["question", "answer", "ground_truth"],
    lists: ["answer", "ground_truth"],
    free: 0,
  },
};

function listItems(text: string, step: string, field: string): string[] {
  if (text === "(none)") return [];
  const lines = text.split("\n");
  return lines.map((line, i) => {
    const prefix = `${i + 1}. `;
    if (!line.startsWith(prefix)) {
      throw new FixtureError(
        `step ${step}: expected item ${i + 1} of the ${field} list to begin with ${JSON.stringify(prefix)}, found ${JSON.stringify(line.slice(0, 60))}`,
      );
    }
    return line.slice(prefix.length);
  });
}

/**
 * The input of `step` read back from its prompt (STEP_PROMPTS's layout). The `claims` step's
 * `atomicity` and `coverage` are not read: the fixture's claims are a text's statements either way.
 *
 * @throws {FixtureError} when a marker of the step's prompt is missing.
 */
export function stepInput(step: StepName, prompt: string): Record<string, string | string[]> {
  const { markers, fields, lists = [], free } = LAYOUT[step];
  const at: number[] = new Array(markers.length);
  const missing = (m: string) =>
    new FixtureError(
      `step ${step}: the prompt has no ${JSON.stringify(m)} (the fixture reads the built-in prompts of STEP_PROMPTS)`,
    );
  // From the left up to the free field's opening marker…
  let from = 0;
  for (let i = 0; i <= free; i++) {
    const m = markers[i] as string;
    const p = prompt.indexOf(m, from);
    if (p < 0) throw missing(m);
    at[i] = p;
    from = p + m.length;
  }
  // …and from the right down to its closing one.
  let to = prompt.length;
  for (let i = markers.length - 1; i > free; i--) {
    const m = markers[i] as string;
    const p = prompt.lastIndexOf(m, to - m.length);
    if (p < from) throw missing(m);
    at[i] = p;
    to = p;
  }
  const out: Record<string, string | string[]> = {};
  for (let f = 0; f < fields.length; f++) {
    const name = fields[f] as string;
    const text = prompt.slice((at[f] as number) + (markers[f] as string).length, at[f + 1]);
    out[name] = lists.includes(name) ? listItems(text, step, name) : text;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Replying to a step.

const quote = (s: string): string => JSON.stringify(s);

function verdictOf(text: string, s: string, step: string, where: string) {
  const evidence = evidenceOf(s, step);
  const ok = supports(text, evidence);
  return {
    ok,
    reason: ok ? `${where} says ${quote(evidence)}` : `${where} does not say ${quote(evidence)}`,
  };
}

/**
 * The fixture's reply to one judge step, from the step's name and its prompt.
 *
 * @throws {FixtureError} for a prompt it cannot read or content it has no fixture for.
 */
export function judgeReply(step: StepName, prompt: string): StepReplies[StepName] {
  const input = stepInput(step, prompt);
  switch (step) {
    case "statements": {
      const { answer } = input as unknown as StepInputs["statements"];
      return { statements: statementsOf(answer, step).map((s) => s.statement) };
    }
    case "claims": {
      const { text } = input as unknown as StepInputs["claims"];
      return { claims: statementsOf(text, step).map((s) => s.statement) };
    }
    case "verdicts": {
      const { context, statements } = input as unknown as StepInputs["verdicts"];
      return {
        verdicts: statements.map((statement) => {
          const v = verdictOf(context, statement, step, "the context");
          return { statement, reason: v.reason, verdict: v.ok ? 1 : 0 };
        }),
      };
    }
    case "context_verdict": {
      const { context, reference } = input as unknown as StepInputs["context_verdict"];
      const hit = statementsOf(reference, step).find((s) => supports(context, s.evidence));
      return hit === undefined
        ? { reason: "the passage supports no statement of the answer to reach", verdict: 0 }
        : { reason: `the passage says ${quote(hit.evidence)}`, verdict: 1 };
    }
    case "attributions": {
      const { context, reference } = input as unknown as StepInputs["attributions"];
      return {
        attributions: statementsOf(reference, step).map((s) => {
          const v = verdictOf(context, s.statement, step, "the context");
          return { statement: s.statement, reason: v.reason, attributed: v.ok ? 1 : 0 };
        }),
      };
    }
    case "question_generation": {
      const { answer } = input as unknown as StepInputs["question_generation"];
      const entry = BY_ANSWER.get(answer);
      if (entry === undefined) {
        throw new FixtureError(`step ${step}: the fixture has no answer ${quote(answer)}`);
      }
      return { question: entry.generated_question, noncommittal: 0 };
    }
    case "classification": {
      const { answer, ground_truth } = input as unknown as StepInputs["classification"];
      // Each list is the other's context: an answer statement is TP when the reference
      // statements support it, a reference statement is FN when no answer statement does.
      const reference = ground_truth.join("\n");
      const answered = answer.join("\n");
      const TP: { statement: string; reason: string }[] = [];
      const FP: { statement: string; reason: string }[] = [];
      for (const statement of answer) {
        const v = verdictOf(reference, statement, step, "the reference");
        (v.ok ? TP : FP).push({ statement, reason: v.reason });
      }
      const FN = ground_truth
        .map((statement) => ({ statement, v: verdictOf(answered, statement, step, "the answer") }))
        .filter(({ v }) => !v.ok)
        .map(({ statement, v }) => ({ statement, reason: v.reason }));
      return { TP, FP, FN };
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Embeddings.

/** Dimensions of the fixture's embeddings (as text-embedding-3-small's); FNV-1a puts no two of the fixture's words in one. */
export const EMBEDDING_DIMENSIONS = 1536;

/** A text's words: lower-cased runs of ASCII letters and digits ("5,895" is "5" and "895"). */
export function words(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[a-z0-9]+/g) ?? []);
}

/** The dimension of a word: FNV-1a (32 bits) of its characters, modulo the dimensions. */
export function dimensionOf(word: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) {
    h ^= word.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % EMBEDDING_DIMENSIONS;
}

/**
 * A binary bag of words: 1 in each word's dimension. While the words of two texts fall in
 * distinct dimensions (the fixture's do: `test/fixture-server.test.ts`), their cosine is
 * |shared words| / √(|words of one| · |words of the other|).
 */
export function embedText(text: string): number[] {
  const v = new Array<number>(EMBEDDING_DIMENSIONS).fill(0);
  for (const w of words(text)) v[dimensionOf(w)] = 1;
  return v;
}

// ---------------------------------------------------------------------------------------------
// The server.

/** The steps' names, as `response_format.json_schema.name` carries them. */
export const STEP_NAMES: readonly StepName[] = [
  "statements",
  "verdicts",
  "context_verdict",
  "attributions",
  "question_generation",
  "claims",
  "classification",
];

/** What the server answered, by kind (refused requests are counted apart). */
export interface FixtureStats {
  /** Requests answered with 200. */
  answered: number;
  /** Requests refused with a 429. */
  rateLimited: number;
  /** Requests answered with a 400 (nothing the fixture knows) or a 500. */
  failed: number;
  /** The pipeline's own chat calls answered. */
  generation: number;
  /** Judge steps answered, by step name. */
  judge: Record<string, number>;
  /** Embedding requests answered. */
  embeddings: number;
}

export interface FixtureServer {
  /** The base URL for `createOpenAICompatible`, e.g. `http://127.0.0.1:41234/v1`. */
  readonly url: string;
  readonly stats: FixtureStats;
  close(): Promise<void>;
}

/** One line of the request log (`log` option): what arrived and how it was answered. */
export interface LoggedRequest {
  readonly path: string;
  /** 200, 429 (refused: sent again later), or 400/500 (nothing the fixture knows). */
  readonly status: number;
  /** By route and `response_format` alone ("unknown" for a request the fixture could not answer). */
  readonly kind: "generation" | "judge" | "embeddings" | "unknown";
  /** The request's `response_format`, as sent. */
  readonly response_format?: unknown;
  /** The prompt's first line (chat requests). */
  readonly first_line?: string;
}

const tokens = (text: string): number => Math.ceil(text.length / 4);

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((p: { text?: unknown }) => (typeof p.text === "string" ? p.text : ""))
      .join("");
  }
  return "";
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

/** The pipeline's answer to its RAG prompt (`<context>…</context>\n\nQuestion: …`). */
function generationReply(prompt: string): string {
  const q = prompt.lastIndexOf("\nQuestion: ");
  if (!prompt.includes("<context>") || q < 0) {
    throw new FixtureError(
      "a chat request without response_format must be the pipeline's RAG prompt (<context>…, Question: …); the fixture answers judge steps only as structured output (response_format json_schema named by the step)",
    );
  }
  const question = prompt.slice(q + "\nQuestion: ".length).trim();
  const entry = FIXTURE[question];
  if (entry === undefined) throw new FixtureError(`no fixture answer for ${quote(question)}`);
  return entry.answer;
}

/** The chat request's prompt (its messages' text, joined with "\n"). */
function promptOf(body: Record<string, unknown>): string {
  const messages = (body.messages ?? []) as { role: string; content: unknown }[];
  return messages.map((m) => contentText(m.content)).join("\n");
}

/** The chat request's kind, its step when a judge asks one, and the reply text. */
function chatAnswer(
  body: Record<string, unknown>,
  prompt: string,
): { readonly step?: StepName; readonly content: string } {
  const format = body.response_format as
    | { type?: unknown; json_schema?: { name?: unknown } }
    | undefined;
  if (format === undefined) return { content: generationReply(prompt) };
  const name = format.json_schema?.name;
  if (format.type !== "json_schema" || !STEP_NAMES.includes(name as StepName)) {
    throw new FixtureError(
      `response_format must be {type: "json_schema", json_schema: {name: <a judge step: ${STEP_NAMES.join(", ")}>}}, found ${JSON.stringify(format).slice(0, 200)}`,
    );
  }
  const step = name as StepName;
  return { step, content: JSON.stringify(judgeReply(step, prompt)) };
}

/**
 * Starts the offline model. It does not keep the process alive (`unref`).
 *
 * - `rateLimitEvery`: refuse every n-th request with a 429 (0, the default: never).
 * - `log`: a file to append one JSON line ({@link LoggedRequest}) per request to.
 */
export async function startFixtureServer(
  options: { rateLimitEvery?: number; log?: string } = {},
): Promise<FixtureServer> {
  const every = options.rateLimitEvery ?? 0;
  const stats: FixtureStats = {
    answered: 0,
    rateLimited: 0,
    failed: 0,
    generation: 0,
    judge: {},
    embeddings: 0,
  };
  let requests = 0;
  // Created at once, so that a run that sent nothing leaves an empty log, not none.
  if (options.log !== undefined) appendFileSync(options.log, "");
  const log = (entry: LoggedRequest): void => {
    if (options.log !== undefined) appendFileSync(options.log, `${JSON.stringify(entry)}\n`);
  };
  const handle = (req: IncomingMessage, res: ServerResponse, body: Record<string, unknown>) => {
    requests++;
    const path = req.url ?? "";
    const chat = path === "/v1/chat/completions";
    const prompt = chat ? promptOf(body) : "";
    const seen = chat
      ? { response_format: body.response_format, first_line: prompt.split("\n")[0] ?? "" }
      : {};
    if (every > 0 && requests % every === 0) {
      stats.rateLimited++;
      const kind = !chat
        ? path === "/v1/embeddings"
          ? "embeddings"
          : "unknown"
        : body.response_format === undefined
          ? "generation"
          : "judge";
      log({ path, status: 429, kind, ...seen });
      send(
        res,
        429,
        { error: { message: "Rate limit reached (fixture)", type: "rate_limit_exceeded" } },
        { "retry-after-ms": "200", "retry-after": "1" },
      );
      return;
    }
    try {
      if (path === "/v1/embeddings") {
        const input = (typeof body.input === "string" ? [body.input] : body.input) as unknown;
        if (!Array.isArray(input) || !input.every((t) => typeof t === "string")) {
          throw new FixtureError("expected input: a string or an array of strings");
        }
        stats.answered++;
        stats.embeddings++;
        log({ path, status: 200, kind: "embeddings" });
        const n = input.reduce((sum: number, t: string) => sum + tokens(t), 0);
        send(res, 200, {
          object: "list",
          model: body.model,
          data: input.map((t: string, index) => ({
            object: "embedding",
            index,
            embedding: embedText(t),
          })),
          usage: { prompt_tokens: n, total_tokens: n },
        });
        return;
      }
      if (!chat) throw new FixtureError(`no route ${path}`);
      const { step, content } = chatAnswer(body, prompt);
      stats.answered++;
      if (step === undefined) stats.generation++;
      else stats.judge[step] = (stats.judge[step] ?? 0) + 1;
      log({ path, status: 200, kind: step === undefined ? "generation" : "judge", ...seen });
      const usage = { prompt_tokens: tokens(prompt), completion_tokens: tokens(content) };
      send(res, 200, {
        id: `fixture-${requests}`,
        object: "chat.completion",
        created: 1_764_892_800,
        model: body.model,
        choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
        usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
      });
    } catch (error) {
      // A FixtureError is a request the fixture has no reply for; anything else, its own bug.
      const status = error instanceof FixtureError ? 400 : 500;
      stats.failed++;
      log({ path, status, kind: "unknown", ...seen });
      const message = `fixture: ${error instanceof Error ? error.message : String(error)}`;
      send(res, status, { error: { message, type: "invalid_request" } });
    }
  };
  const server = createServer((req, res) => {
    readJson(req).then(
      (body) => handle(req, res, body),
      () => send(res, 400, { error: { message: "the body is not JSON" } }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  server.unref();
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    stats,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The stats as the lines `models.ts` prints when the process exits. */
export function statsLines(stats: FixtureStats): string[] {
  const judged = STEP_NAMES.filter((s) => (stats.judge[s] ?? 0) > 0);
  const judge = judged.reduce((n, s) => n + (stats.judge[s] ?? 0), 0);
  const steps = judged.map((s) => `${s} ${stats.judge[s]}`).join(", ");
  return [
    `the fixture answered ${stats.answered} requests (${stats.generation} generation, ${judge} judge steps, ${stats.embeddings} embeddings) and refused ${stats.rateLimited} with HTTP 429 (each retried after its retry-after-ms)${stats.failed > 0 ? `; ${stats.failed} requests it could not answer got HTTP 400 or 500` : ""}`,
    `judge steps by response_format name: ${judge === 0 ? "none" : steps}`,
  ];
}
