// When a provider refuses structured output: which errors of a structured call mean "this model
// has none" (so aiJudge's "auto" mode asks in text from then on), and which do not.
import { schemaProblem } from "@fastrag/bench-core/internal";
import { UnsupportedFunctionalityError } from "ai";

interface ErrorLike {
  readonly statusCode?: unknown;
  readonly message?: unknown;
  readonly responseBody?: unknown;
  readonly lastError?: unknown;
  readonly cause?: unknown;
}

/** The statuses a server answers a request body it cannot honour with. */
const REFUSED = new Set([400, 422, 501]);
/** What the error must be about: the structured-output part of the request. */
const FEATURE = /response[ _-]?format|json[ _-]?schema|structured[ _-]?output/i;
/** … and what it must say about it (not "invalid schema": that is a schema to fix, not a model). */
const REFUSAL =
  /not supported|unsupported|does not support|doesn't support|not available|unavailable|not allowed|not permitted|extra inputs|unrecognized|unknown (?:parameter|field|argument)|not implemented/i;
/**
 * A complaint about the schema itself, even when it says "not permitted" of a keyword (OpenAI's
 * strict mode: "Invalid schema for response_format 'x': … 'format' is not permitted."): that is a
 * schema to fix, which text would hide.
 */
const SCHEMA_PROBLEM = /invalid (?:json )?schema|schema (?:is )?invalid/i;
/** What an `UnsupportedFunctionalityError` must name to be about structured output. */
const FUNCTIONALITY = /json|response[ _-]?format|structured|schema/i;

/**
 * True when `error`, thrown by a structured call, says the model or provider has no structured
 * output, so the same prompt asked as plain text may succeed:
 *
 * - the AI SDK's `UnsupportedFunctionalityError` whose `functionality` names JSON, a response
 *   format, structured output or a schema (a provider refusing before any request is sent);
 * - the provider's HTTP error (`APICallError`, also inside a `RetryError`) with status 400, 422
 *   or 501 whose message or response body names `response_format`, `json_schema` or structured
 *   output **and** says it is not supported (`not supported`, `unsupported`, `does not support`,
 *   `not available`, `unavailable`, `not allowed`, `not permitted`, `extra inputs`,
 *   `unrecognized`, `unknown parameter|field|argument`, `not implemented`), and does not say
 *   `invalid schema` or `schema is invalid`. OpenAI's "Invalid parameter: 'response_format' of
 *   type 'json_schema' is not supported with this model." is one.
 *
 * Anything else is not: a 429, another 5xx, an abort, a network failure, an authentication error,
 * and an error about the schema itself (OpenAI's "Invalid schema for response_format …", which
 * strict mode gives a schema it cannot enforce, even when it says a keyword "is not permitted"):
 * falling back to text would hide a problem to fix.
 */
export function isStructuredOutputUnsupported(error: unknown): boolean {
  let e: unknown = error;
  for (let depth = 0; depth < 4 && typeof e === "object" && e !== null; depth++) {
    if (UnsupportedFunctionalityError.isInstance(e)) return FUNCTIONALITY.test(e.functionality);
    const o = e as ErrorLike;
    if (typeof o.statusCode === "number") {
      if (!REFUSED.has(o.statusCode)) return false;
      const text = `${typeof o.message === "string" ? o.message : ""}\n${
        typeof o.responseBody === "string" ? o.responseBody : ""
      }`;
      return FEATURE.test(text) && REFUSAL.test(text) && !SCHEMA_PROBLEM.test(text);
    }
    e = o.lastError ?? o.cause;
  }
  return false;
}

/** Whether a model says it has no structured output (`supportsStructuredOutputs: false`). */
export function lacksStructuredOutput(model: unknown): boolean {
  return (
    typeof model === "object" &&
    model !== null &&
    (model as { supportsStructuredOutputs?: unknown }).supportsStructuredOutputs === false
  );
}

/** The AI SDK's `validate` for `jsonSchema()`: the judge steps' schema subset, checked by core. */
export function schemaValidator(
  schema: Readonly<Record<string, unknown>>,
): (
  value: unknown,
) => { success: true; value: Record<string, unknown> } | { success: false; error: Error } {
  return (value) => {
    const problem = schemaProblem(value, schema);
    return problem === undefined
      ? { success: true, value: value as Record<string, unknown> }
      : {
          success: false,
          error: new Error(`the reply does not match the step's schema: ${problem}`),
        };
  };
}

/** A schema name a provider accepts (OpenAI: letters, digits, `_` and `-`, up to 64). */
export function schemaName(step: string | undefined): string | undefined {
  return step !== undefined && /^[A-Za-z0-9_-]{1,64}$/.test(step) ? step : undefined;
}
