import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One request the fixture server received. */
export interface RecordedRequest {
  readonly path: string;
  readonly body: Record<string, unknown>;
  /** `performance.now()` when it arrived. */
  readonly at: number;
  /** The status the server answered with (0 when the client went away first). */
  status: number;
  /** True when the client closed the connection before the answer. */
  aborted: boolean;
  /** True once the exchange ended: answered, or the client went away. */
  closed: boolean;
}

/** What the server answers with a 429 for one request. */
export interface RateLimitAnswer {
  readonly retryAfterMs?: number;
  readonly retryAfterSeconds?: number;
}

/** An error answer: the status and the JSON body. */
export interface ErrorAnswer {
  readonly status: number;
  readonly body: unknown;
}

export interface FixtureServerOptions {
  /**
   * The reply text for a chat prompt (the user message), the system message if any, and the
   * request's body (`response_format` says whether structured output was asked for).
   */
  readonly reply?: (
    prompt: string,
    system: string | undefined,
    body: Record<string, unknown>,
  ) => string;
  /** Answers request n of this body with an error (e.g. a 400 refusing `response_format`), or not. */
  readonly refuse?: (body: Record<string, unknown>, n: number) => ErrorAnswer | undefined;
  /** The vector of one text, for `/embeddings`. */
  readonly embed?: (text: string) => number[];
  /** Answers request n (1-based, counting every request) with a 429, or not. */
  readonly rateLimit?: (n: number) => RateLimitAnswer | undefined;
  /** Holds request n this long before answering. */
  readonly delayMs?: (n: number) => number;
  /** The usage the server reports for each chat completion. */
  readonly usage?: { readonly prompt_tokens: number; readonly completion_tokens: number };
}

export interface FixtureServer {
  /** The base URL, e.g. `http://127.0.0.1:41234/v1`. */
  readonly url: string;
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

function text(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((p) => (typeof p === "object" && p !== null && "text" in p ? String(p.text) : ""))
      .join("");
  }
  return "";
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
}

function json(res: ServerResponse, status: number, body: unknown, headers = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

/**
 * A minimal OpenAI-compatible server on 127.0.0.1 (a random free port): `/v1/chat/completions`
 * answers from `reply`, `/v1/embeddings` from `embed`, and a request that `rateLimit` picks gets
 * a 429 with `retry-after-ms` and/or `retry-after`. Only loopback traffic.
 */
export async function startFixtureServer(options: FixtureServerOptions): Promise<FixtureServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const at = performance.now();
    // Listened to before the body is read: a client may go away while it is sent.
    let ended: { aborted: boolean } | undefined;
    let record: RecordedRequest | undefined;
    res.on("close", () => {
      ended = { aborted: !res.writableFinished };
      if (record !== undefined) Object.assign(record, { closed: true }, ended);
    });
    void (async () => {
      const body = await readBody(req);
      record = {
        path: req.url ?? "",
        body,
        at,
        status: 0,
        aborted: ended?.aborted ?? false,
        closed: ended !== undefined,
      };
      requests.push(record);
      await answer({ res, record, body, n: requests.length }, options);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** One request being answered: the response, its record, its body, and its number (1-based). */
interface Exchange {
  readonly res: ServerResponse;
  readonly record: RecordedRequest;
  readonly body: Record<string, unknown>;
  readonly n: number;
}

/** Answers a request as the options say: held, rate limited, refused, or by its route. */
async function answer(x: Exchange, options: FixtureServerOptions): Promise<void> {
  const delay = options.delayMs?.(x.n) ?? 0;
  if (delay > 0) await new Promise((r) => setTimeout(r, delay));
  if (x.res.destroyed) return;
  const limited = options.rateLimit?.(x.n);
  if (limited !== undefined) {
    const headers: Record<string, string> = {};
    if (limited.retryAfterMs !== undefined)
      headers["retry-after-ms"] = String(limited.retryAfterMs);
    if (limited.retryAfterSeconds !== undefined) {
      headers["retry-after"] = String(limited.retryAfterSeconds);
    }
    const error = { message: "Rate limit reached", type: "rate_limit_exceeded" };
    respond(x, 429, { error }, headers);
    return;
  }
  const refused = options.refuse?.(x.body, x.n);
  if (refused !== undefined) respond(x, refused.status, refused.body);
  else if (x.record.path === "/v1/chat/completions") respond(x, 200, completion(x, options));
  else if (x.record.path === "/v1/embeddings" && options.embed !== undefined) {
    respond(x, 200, embeddings(x.body, options.embed));
  } else respond(x, 404, { error: { message: `no route ${x.record.path}` } });
}

function respond(x: Exchange, status: number, body: unknown, headers = {}): void {
  x.record.status = status;
  json(x.res, status, body, headers);
}

/** A chat completion of the request's messages, its content from `reply`. */
function completion(x: Exchange, options: FixtureServerOptions): unknown {
  const { body, n } = x;
  const messages = (body.messages ?? []) as { role: string; content: unknown }[];
  const system = messages.find((m) => m.role === "system");
  const prompt = messages
    .filter((m) => m.role === "user")
    .map((m) => text(m.content))
    .join("\n");
  const content = (options.reply ?? (() => ""))(prompt, system && text(system.content), body);
  const usage = options.usage ?? { prompt_tokens: 100, completion_tokens: 20 };
  return {
    id: `chatcmpl-${n}`,
    object: "chat.completion",
    created: 1_700_000_000,
    model: body.model,
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}

/** The embeddings of the request's inputs, one token a word. */
function embeddings(body: Record<string, unknown>, embed: (text: string) => number[]): unknown {
  const input = body.input as string[];
  const tokens = input.reduce((s, t) => s + t.split(/\s+/).filter(Boolean).length, 0);
  return {
    object: "list",
    model: body.model,
    data: input.map((t, index) => ({ object: "embedding", index, embedding: embed(t) })),
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}
