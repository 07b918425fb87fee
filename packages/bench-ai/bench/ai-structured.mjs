// Structured output against text (issue 39). Run: node packages/bench-ai/bench/ai-structured.mjs
// (after `pnpm build`). Counts the judge replies that do not parse over N `verdicts` calls.
//
// The "model" is scripted, on an OpenAI-compatible server on 127.0.0.1 (the same protocol as
// src/__fixtures__/openai-server.ts, which the tests use; this is its double in plain JS, as the
// benchmarks run on the build without a TypeScript loader). In text it misbehaves as real models
// do, in a share of its replies that is THIS SCRIPT'S INPUT (`AI_STRUCTURED_BAD_RATE`, default
// 0.2), not a measured property of any model: prose before the JSON, commentary after it, an
// object cut short, single quotes, a quarter each; some valid replies come in a ```json fence
// (which the strict rule allows). Asked with `response_format: json_schema`, it always returns a
// valid object, as a server that enforces the schema would. Which reply a call gets depends on
// its prompt alone (a hash), so every mode sees the same schedule.
//
// A reply is parsable by the strict rule of the judge metrics: an object as it is, or text that
// is one JSON object, optionally inside one ```json fence. Parsable replies are also checked
// against the step's schema.
//
// Modes: structured (provider created with supportsStructuredOutputs: true, aiJudge "auto");
// text ("never"); "auto" with the provider's default (no structured output: text, no request
// spent finding out); "auto" against a server that refuses json_schema with OpenAI's 400 (one
// refused request, then text).
import { createServer } from "node:http";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { schemaProblem } from "@fastrag/bench-core/internal";
import { aiJudge } from "../dist/index.js";

const N = Number(process.env.AI_STRUCTURED_CALLS ?? 200);
const BAD_RATE = Number(process.env.AI_STRUCTURED_BAD_RATE ?? 0.2);
const FENCED_RATE = 0.15;

const SCHEMA = {
  type: "object",
  properties: {
    verdicts: {
      type: "array",
      items: {
        type: "object",
        properties: {
          statement: { type: "string" },
          reason: { type: "string" },
          verdict: { type: "integer", enum: [0, 1] },
        },
        required: ["statement", "reason", "verdict"],
        additionalProperties: false,
      },
    },
  },
  required: ["verdicts"],
  additionalProperties: false,
};

/** A 32-bit FNV-1a hash of a text, mixed (murmur3's finalizer), as a number in [0, 1). */
function unit(text, salt) {
  let h = 0x811c9dc5 ^ salt;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return ((h ^ (h >>> 16)) >>> 0) / 4294967296;
}

/** The statements listed in a prompt ("1. …"). */
function statementsOf(prompt) {
  return [...prompt.matchAll(/^\d+\. (.*)$/gm)].map((m) => m[1]);
}

/** The verdicts object the model means, from the prompt. */
function verdictsFor(prompt) {
  return {
    verdicts: statementsOf(prompt).map((statement, i) => ({
      statement,
      reason: i % 2 === 0 ? "The context states it." : "The context does not mention it.",
      verdict: i % 2 === 0 ? 1 : 0,
    })),
  };
}

/** The reply in text: usually the object, in a share of replies the ways real models go wrong. */
function textReply(prompt) {
  const json = JSON.stringify(verdictsFor(prompt), null, 2);
  const r = unit(prompt, 1);
  if (r < BAD_RATE) {
    switch (Math.floor((r / BAD_RATE) * 4)) {
      case 0:
        return `Sure! Here is my assessment of each statement:\n\n${json}`;
      case 1:
        return `${json}\n\nNote: the second statement is borderline; I marked it unsupported.`;
      case 2:
        return json.slice(0, Math.floor(json.length * 0.7)); // cut short, as at a token limit
      default:
        return json.replaceAll('"', "'"); // a Python dict
    }
  }
  return unit(prompt, 2) < FENCED_RATE ? `\`\`\`json\n${json}\n\`\`\`` : json;
}

const REFUSAL = {
  error: {
    message:
      "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
    type: "invalid_request_error",
    param: "response_format",
    code: null,
  },
};

/** An OpenAI-compatible server on 127.0.0.1; `refuseSchema` answers json_schema with a 400. */
async function startServer({ refuseSchema }) {
  const seen = { requests: 0, refused: 0, structured: 0 };
  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    seen.requests++;
    const prompt = body.messages
      .filter((m) => m.role === "user")
      .map((m) =>
        typeof m.content === "string" ? m.content : m.content.map((p) => p.text).join(""),
      )
      .join("\n");
    const structured = body.response_format?.type === "json_schema";
    if (structured && refuseSchema) {
      seen.refused++;
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify(REFUSAL));
      return;
    }
    if (structured) seen.structured++;
    const content = structured ? JSON.stringify(verdictsFor(prompt), null, 2) : textReply(prompt);
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        id: `chatcmpl-${seen.requests}`,
        object: "chat.completion",
        created: 1_700_000_000,
        model: body.model,
        choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
        usage: {
          prompt_tokens: Math.ceil(prompt.length / 4),
          completion_tokens: Math.ceil(content.length / 4),
          total_tokens: Math.ceil(prompt.length / 4) + Math.ceil(content.length / 4),
        },
      }),
    );
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/v1`,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}

const FENCED = /^```(?:json)?[ \t]*\r?\n([\s\S]*?)\r?\n?```$/;

/** The strict rule: the object, or undefined when the reply does not parse. */
function parseStrict(reply) {
  if (typeof reply === "object" && reply !== null) return reply;
  let text = reply.trim();
  const fenced = FENCED.exec(text);
  if (fenced !== null) text = fenced[1].trim();
  try {
    const value = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

const ANSWERS = [
  "Paris is the capital of France.",
  "The Eiffel Tower was finished in 1889.",
  "It is 330 metres tall.",
  "Gustave Eiffel's company built it.",
  "It is painted every seven years.",
];

function prompt(i) {
  const statements = [ANSWERS[i % 5], ANSWERS[(i * 3 + 1) % 5], `Call ${i} has its own statement.`];
  return [
    "Judge whether each statement can be directly inferred from the context.",
    "<context>\nThe Eiffel Tower, in Paris, was finished in 1889.\n</context>",
    `<statements>\n${statements.map((s, k) => `${k + 1}. ${s}`).join("\n")}\n</statements>`,
    'Reply with one JSON object and nothing else: {"verdicts": [{"statement": "…", "reason": "…", "verdict": 0 or 1}]}',
  ].join("\n\n");
}

async function measure(label, { supportsStructuredOutputs, refuseSchema, mode }) {
  const server = await startServer({ refuseSchema });
  const provider = createOpenAICompatible({
    name: "fixture",
    baseURL: server.url,
    apiKey: "bench",
    ...(supportsStructuredOutputs ? { supportsStructuredOutputs: true } : {}),
  });
  const judge = aiJudge(provider.chatModel("scripted-judge"), { structuredOutput: mode });
  const counts = { objects: 0, unparsable: 0, offSchema: 0 };
  for (let i = 0; i < N; i++) {
    const reply = await judge(prompt(i), {
      step: "verdicts",
      schema: SCHEMA,
    });
    if (typeof reply === "object") counts.objects++;
    const parsed = parseStrict(reply);
    if (parsed === undefined) counts.unparsable++;
    else if (schemaProblem(parsed, SCHEMA) !== undefined) counts.offSchema++;
  }
  await server.close();
  return { label, ...counts, ...server.seen };
}

const rows = [
  await measure("structured (json_schema)", {
    supportsStructuredOutputs: true,
    refuseSchema: false,
    mode: "auto",
  }),
  await measure('text ("never")', {
    supportsStructuredOutputs: true,
    refuseSchema: false,
    mode: "never",
  }),
  await measure('"auto", provider default (no structured output)', {
    supportsStructuredOutputs: false,
    refuseSchema: false,
    mode: "auto",
  }),
  await measure('"auto", server refuses json_schema (400)', {
    supportsStructuredOutputs: true,
    refuseSchema: true,
    mode: "auto",
  }),
];

const kinds = [0, 0, 0, 0];
for (let i = 0; i < N; i++) {
  const r = unit(prompt(i), 1);
  if (r < BAD_RATE) kinds[Math.floor((r / BAD_RATE) * 4)]++;
}
console.log(
  `${N} verdicts calls per mode; text misbehaviour rate ${BAD_RATE} (this script's input: ` +
    `${kinds.reduce((a, b) => a + b, 0)} of these ${N} prompts get a bad text reply: ` +
    `${kinds[0]} prose before, ${kinds[1]} commentary after, ${kinds[2]} cut short, ` +
    `${kinds[3]} single quotes), ${FENCED_RATE} of the rest fenced`,
);
console.log("mode | unparsable | off schema | object replies | HTTP requests (refused)");
for (const r of rows) {
  console.log(
    `${r.label} | ${r.unparsable} | ${r.offSchema} | ${r.objects} | ${r.requests} (${r.refused})`,
  );
}
