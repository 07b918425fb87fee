/**
 * The offline model: an OpenAI-compatible HTTP server on 127.0.0.1 (a random free port) that
 * answers from `data/fixture-replies.json`. It is a fixture, not a model: it reads no meaning.
 *
 * - A RAG prompt (the pipeline's, with `<context>`) gets the question's fixed `answer`.
 * - A `Faithfulness` prompt (`<passages>`) gets the question's claims, each marked supported
 *   exactly when its `evidence` text appears in the passages the judge was shown.
 * - An `AnswerCorrectness` prompt (`<reference_answers>`) gets the question's fixed grade.
 * - Every `rateLimitEvery`-th request is refused with HTTP 429 and `retry-after-ms`, as a busy
 *   provider does; the AI SDK waits that long and sends it again.
 *
 * Usage is counted as one token per four characters of the messages and of the reply.
 */
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

interface Claim {
  readonly claim: string;
  readonly evidence: string | null;
}
interface Reply {
  readonly answer: string;
  readonly claims: readonly Claim[];
  readonly correctness: { readonly score: number; readonly reason: string };
}

export interface FixtureServer {
  /** The base URL for `createOpenAICompatible`, e.g. `http://127.0.0.1:41234/v1`. */
  readonly url: string;
  /** Requests answered, and refused with a 429. */
  readonly stats: { answered: number; rateLimited: number };
  close(): Promise<void>;
}

const REPLIES = JSON.parse(
  readFileSync(new URL("../data/fixture-replies.json", import.meta.url), "utf8"),
) as Record<string, Reply>;

function between(text: string, open: string, close: string): string | undefined {
  const start = text.indexOf(open);
  if (start < 0) return undefined;
  const end = text.indexOf(close, start + open.length);
  return end < 0 ? undefined : text.slice(start + open.length, end);
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((p: { text?: unknown }) => (typeof p.text === "string" ? p.text : ""))
      .join("");
  }
  return "";
}

/** The reply of the offline model to one chat prompt. */
export function fixtureReply(prompt: string): string {
  const entry = Object.entries(REPLIES).find(([question]) => prompt.includes(question));
  if (entry === undefined) return "I have no fixture reply for this prompt.";
  const [, reply] = entry;
  const passages = between(prompt, "<passages>", "</passages>");
  if (passages !== undefined) {
    const claims = reply.claims.map((c) => ({
      claim: c.claim,
      supported: c.evidence !== null && passages.includes(c.evidence),
    }));
    return JSON.stringify({ claims });
  }
  if (prompt.includes("<reference_answers>")) return JSON.stringify(reply.correctness);
  return reply.answer;
}

const tokens = (text: string): number => Math.ceil(text.length / 4);

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

/** Starts the offline model. It does not keep the process alive (`unref`). */
export async function startFixtureServer(
  options: { rateLimitEvery?: number } = {},
): Promise<FixtureServer> {
  const every = options.rateLimitEvery ?? 0;
  const stats = { answered: 0, rateLimited: 0 };
  let requests = 0;
  const server = createServer((req, res) => {
    readJson(req).then(
      (body) => {
        requests++;
        if (every > 0 && requests % every === 0) {
          stats.rateLimited++;
          send(
            res,
            429,
            { error: { message: "Rate limit reached (fixture)", type: "rate_limit_exceeded" } },
            {
              "retry-after-ms": "200",
              "retry-after": "1",
            },
          );
          return;
        }
        if (req.url !== "/v1/chat/completions") {
          send(res, 404, { error: { message: `no route ${req.url}` } });
          return;
        }
        const messages = (body.messages ?? []) as { role: string; content: unknown }[];
        const all = messages.map((m) => contentText(m.content)).join("\n");
        const content = fixtureReply(all);
        stats.answered++;
        const usage = { prompt_tokens: tokens(all), completion_tokens: tokens(content) };
        send(res, 200, {
          id: `fixture-${requests}`,
          object: "chat.completion",
          created: 1_764_892_800,
          model: body.model,
          choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
          usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
        });
      },
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
