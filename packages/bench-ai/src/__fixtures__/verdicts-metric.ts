/**
 * A judge metric of the DESIGN §11 protocol, small enough to read in one go, so that this
 * package's Benchmark tests depend on core alone (not on the metrics package's prompts): it asks
 * one `verdicts` step (input `{context, statements}`, reply `{verdicts: [{statement, reason,
 * verdict: 0 or 1}]}`) with the step's schema, parses the reply by the strict rule (an object,
 * or text holding one JSON object, optionally in one ```json fence), checks it against the
 * schema, and scores the mean verdict. An unparsable or mismatched reply throws a
 * `MetricUnavailableError`: the sample is incomplete, never scored 0.
 */
import {
  type JsonSchema,
  type JudgeFunction,
  type JudgeReply,
  type Metric,
  type MetricInput,
  MetricUnavailableError,
} from "@fastrag/bench-core";
import { schemaProblem } from "@fastrag/bench-core/internal";

export const VERDICTS_SCHEMA: JsonSchema = {
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

const FENCED = /^```(?:json)?[ \t]*\r?\n([\s\S]*?)\r?\n?```$/;

/** The strict rule: an object as it is; text must be one JSON object (one ```json fence allowed). */
export function parseStrict(reply: JudgeReply): Record<string, unknown> | undefined {
  if (typeof reply === "object") return reply as Record<string, unknown>;
  let text = reply.trim();
  const fenced = FENCED.exec(text);
  if (fenced !== null) text = (fenced[1] as string).trim();
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The prompt: the statements and the context, with the reply's shape spelled out. */
export function verdictsPrompt(context: string, statements: readonly string[]): string {
  return [
    "Judge whether each statement can be directly inferred from the context.",
    `<context>\n${context}\n</context>`,
    `<statements>\n${statements.map((s, i) => `${i + 1}. ${s}`).join("\n")}\n</statements>`,
    'Reply with one JSON object and nothing else: {"verdicts": [{"statement": "…", "reason": "…", "verdict": 0 or 1}]}',
  ].join("\n\n");
}

/** The mean verdict of the answer's sentences against the retrieved text. */
export class VerdictsMetric implements Metric {
  readonly name = "supported";
  readonly higherIsBetter = true;
  readonly needsRelevantIds = false;
  readonly needsAnswer = true;
  readonly needsChunkText = true;
  readonly #judge: JudgeFunction;

  constructor(judge: JudgeFunction) {
    this.#judge = judge;
  }

  async score(input: MetricInput): Promise<number | null> {
    if (input.answer === null) return null;
    const statements = input.answer
      .split(/(?<=\.)\s+/)
      .map((s) => s.trim())
      .filter((s) => s !== "");
    if (statements.length === 0) return null;
    const context = input.retrieved.map((c) => c.text ?? "").join("\n");
    const reply = await this.#judge(verdictsPrompt(context, statements), {
      signal: input.signal ?? new AbortController().signal,
      ...(input.reportUsage === undefined ? {} : { reportUsage: input.reportUsage }),
      ...(input.limiter === undefined ? {} : { limiter: input.limiter }),
      step: "verdicts",
      metric: this.name,
      input: { context, statements },
      schema: VERDICTS_SCHEMA,
    });
    const parsed = parseStrict(reply);
    if (parsed === undefined) {
      throw new MetricUnavailableError(
        `unparsable judge reply: ${JSON.stringify(String(reply).slice(0, 80))}`,
      );
    }
    const problem = schemaProblem(parsed, VERDICTS_SCHEMA);
    if (problem !== undefined) throw new MetricUnavailableError(`judge reply: ${problem}`);
    const verdicts = parsed.verdicts as { verdict: number }[];
    if (verdicts.length !== statements.length) {
      throw new MetricUnavailableError(
        `judge reply: ${verdicts.length} verdicts for ${statements.length} statements`,
      );
    }
    return verdicts.reduce((sum, v) => sum + v.verdict, 0) / verdicts.length;
  }
}
