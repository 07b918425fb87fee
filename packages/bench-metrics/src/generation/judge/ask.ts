// Asking a judge step: shared within the sample, answered from kept judgments or the run's cache
// when they hold it, checked against the step's schema, and kept in the sample's record.
import {
  type EmbedFunction,
  type JudgeFunction,
  judgeStepKey,
  type MetricInput,
  MetricUnavailableError,
  modelCacheKey,
} from "@fastrag/bench-core";
import { schemaProblem } from "@fastrag/bench-core/internal";
import { modelCall, parseJudgeObject } from "../judge.js";
import {
  PROMPT_VERSIONS,
  replyProblem,
  STEP_PROMPTS,
  STEP_SCHEMAS,
  type StepInputs,
  type StepName,
  type StepPrompts,
  type StepReplies,
} from "./steps.js";

/** Default time limit on each judge and embed call of the judge metrics: 2 minutes. */
export const DEFAULT_JUDGE_TIMEOUT_MS = 120_000;

/** What a metric asks with: its name, judge, prompts and time limit. */
export interface Asker {
  readonly metric: string;
  readonly judge: JudgeFunction;
  readonly prompts: StepPrompts | undefined;
  readonly timeoutMs: number;
}

/** One step to ask. */
export interface StepRequest<S extends StepName> {
  readonly step: S;
  readonly input: StepInputs[S];
  readonly attempt?: number;
  /** What the step is about, for a person reading the record: `"chunk 2"`, `"the reference"`. */
  readonly about?: string;
}

const identities = new WeakMap<object, number>();
let nextIdentity = 0;

/** A model function's `cacheKey`, or `null` when it has none (it is then never cached). */
function modelKeyOf(fn: object): string | null {
  const key = (fn as { cacheKey?: unknown }).cacheKey;
  return typeof key === "string" && key !== "" ? key : null;
}

/** Tells apart, within a process, functions that have no `cacheKey`. */
function identityOf(fn: object): number {
  let id = identities.get(fn);
  if (id === undefined) {
    id = nextIdentity++;
    identities.set(fn, id);
  }
  return id;
}

/** The step's prompt: the metric's own for that step, else the built-in one. */
function promptOf<S extends StepName>(asker: Asker, step: S, input: StepInputs[S]): string {
  const custom = asker.prompts?.[step] as ((i: StepInputs[S]) => string) | undefined;
  return (custom ?? (STEP_PROMPTS[step] as (i: StepInputs[S]) => string))(input);
}

/**
 * The key part that names the prompt: the built-in prompt's version, or the custom prompt's
 * text (a custom prompt's replies are not another prompt's).
 */
function promptId<S extends StepName>(asker: Asker, step: S, input: StepInputs[S]): string {
  return asker.prompts?.[step] === undefined
    ? PROMPT_VERSIONS[step]
    : `custom:${promptOf(asker, step, input)}`;
}

/**
 * The reply, checked: an object matching the step's schema that answers what was asked, or a
 * problem. Used on fresh replies, cached ones and kept ones alike.
 */
function checked<S extends StepName>(
  step: S,
  input: StepInputs[S],
  reply: unknown,
): StepReplies[S] | string {
  let object: Record<string, unknown>;
  try {
    object = parseJudgeObject(reply);
  } catch (error) {
    return (error as Error).message;
  }
  const problem = schemaProblem(object, STEP_SCHEMAS[step]);
  if (problem !== undefined) return `the reply does not match the step's schema (${problem})`;
  const mismatch = replyProblem(step, input, object as unknown as StepReplies[S]);
  if (mismatch !== undefined) return mismatch;
  return object as unknown as StepReplies[S];
}

/**
 * Asks one step of a judge metric (DESIGN §11) and returns its checked reply.
 *
 * - Within a sample, a step with the same judge, step name, input, attempt and prompt is asked
 *   once, whichever metrics ask it and however many at once (`MetricInput.judging.share`).
 * - In a rescore, a step kept in the record (same key) is answered from it, with no call.
 * - With the run's cache and a judge that has a `cacheKey`, a stored reply answers; only replies
 *   that parse, match the schema and answer the statements asked about are stored.
 * - A reply that does not parse, does not match, or a call past `timeoutMs`, throws a
 *   `MetricUnavailableError` naming the step: the sample is incomplete, never scored 0.
 * - The reply is kept in the sample's record under the asking metric's name.
 */
export async function askStep<S extends StepName>(
  asker: Asker,
  input: MetricInput,
  request: StepRequest<S>,
): Promise<StepReplies[S]> {
  const { step, attempt = 0 } = request;
  const modelKey = modelKeyOf(asker.judge);
  const key = judgeStepKey(
    modelKey,
    step,
    request.input,
    attempt,
    promptId(asker, step, request.input),
  );
  const judging = input.judging;
  const place = judging?.keep(asker.metric);
  const ask = () => fetchStep(asker, input, request, key, modelKey !== null);
  const reply =
    judging === undefined
      ? await ask()
      : await judging.share(modelKey === null ? `${key}#${identityOf(asker.judge)}` : key, ask);
  place?.({
    step,
    attempt,
    ...(request.about === undefined ? {} : { about: request.about }),
    key,
    reply: reply as unknown as Record<string, unknown>,
  });
  return reply;
}

async function fetchStep<S extends StepName>(
  asker: Asker,
  input: MetricInput,
  request: StepRequest<S>,
  key: string,
  cachable: boolean,
): Promise<StepReplies[S]> {
  const { step, attempt = 0 } = request;
  const judging = input.judging;
  const kept = judging?.kept?.get(key);
  if (kept !== undefined) {
    const reply = checked(step, request.input, kept);
    if (typeof reply !== "string") return reply;
  }
  const cache = cachable ? judging?.cache : undefined;
  if (cache !== undefined && judging?.refresh !== true) {
    const hit = await cache.get(key);
    if (hit !== undefined) {
      // A stored reply that no longer passes (a store written by another version) is asked again.
      const reply = checked(step, request.input, hit);
      if (typeof reply !== "string") return reply;
    }
  }
  const prompt = promptOf(asker, step, request.input);
  let raw: unknown;
  try {
    raw = await modelCall("judge", asker.timeoutMs, input, (o) =>
      asker.judge(prompt, {
        ...o,
        step,
        metric: asker.metric,
        input: request.input as unknown as Readonly<Record<string, unknown>>,
        schema: STEP_SCHEMAS[step],
        attempt,
      }),
    );
  } catch (error) {
    if (MetricUnavailableError.isInstance(error)) {
      throw new MetricUnavailableError(`step ${step}: ${error.message}`, { cause: error, step });
    }
    throw error;
  }
  const reply = checked(step, request.input, raw);
  if (typeof reply === "string") {
    throw new MetricUnavailableError(`step ${step}: ${reply}`, { step });
  }
  if (cache !== undefined) await cache.set(key, reply);
  return reply;
}

/**
 * The cosine similarity of `texts[0]` with each later text, from one `embed` call of all of them:
 * shared within the sample, cached as a judge step is (with an `embed` that has a `cacheKey`),
 * and kept in the record as a step `embed` whose reply is `{cosines}`, so that a rescore replays
 * it with no call. The vectors are checked: one per text, equal lengths, finite, non-zero.
 */
export async function similarities(
  asker: Asker,
  embed: EmbedFunction,
  input: MetricInput,
  texts: readonly string[],
  about: string,
): Promise<readonly number[]> {
  const modelKey = modelKeyOf(embed);
  const key = judgeStepKey(modelKey, "embed", { texts }, 0);
  const judging = input.judging;
  const place = judging?.keep(asker.metric);
  const ask = async (): Promise<readonly number[]> => {
    const kept = judging?.kept?.get(key)?.cosines;
    if (Array.isArray(kept) && kept.length === texts.length - 1 && kept.every(Number.isFinite)) {
      return kept as number[];
    }
    const cache = modelKey === null ? undefined : judging?.cache;
    const storeKey = modelCacheKey(modelKey ?? "", texts);
    let vectors: readonly (readonly number[])[] | string | undefined;
    if (cache !== undefined && judging?.refresh !== true) {
      const hit = await cache.get(storeKey);
      // A stored entry that is not vectors for these texts is asked again.
      if (hit !== undefined) vectors = checkedVectors(hit, texts.length);
    }
    if (vectors === undefined || typeof vectors === "string") {
      let raw: unknown;
      try {
        raw = await modelCall("embed", asker.timeoutMs, input, (o) => embed([...texts], o));
      } catch (error) {
        if (MetricUnavailableError.isInstance(error)) {
          throw new MetricUnavailableError(`step embed: ${error.message}`, {
            cause: error,
            step: "embed",
          });
        }
        throw error;
      }
      vectors = checkedVectors(raw, texts.length);
      if (typeof vectors === "string") {
        throw new MetricUnavailableError(`step embed: ${vectors}`, { step: "embed" });
      }
      if (cache !== undefined) await cache.set(storeKey, vectors);
    }
    const first = vectors[0] as readonly number[];
    return vectors.slice(1).map((v) => cosine(first, v));
  };
  const cosines = await (judging === undefined
    ? ask()
    : judging.share(modelKey === null ? `${key}#${identityOf(embed)}` : key, ask));
  place?.({ step: "embed", attempt: 0, about, key, reply: { cosines } });
  return cosines;
}

function checkedVectors(value: unknown, n: number): readonly (readonly number[])[] | string {
  if (!Array.isArray(value) || value.length !== n) {
    return `embed returned ${Array.isArray(value) ? `${value.length} vectors` : "no list of vectors"} for ${n} texts, expected one vector per text`;
  }
  const out: number[][] = [];
  let dims: number | undefined;
  for (let i = 0; i < n; i++) {
    const v = value[i] as ArrayLike<unknown> | null | undefined;
    if (typeof v !== "object" || v === null || typeof v.length !== "number" || v.length === 0) {
      return `embed returned no vector for text ${i}, expected a non-empty vector of numbers`;
    }
    if (dims !== undefined && v.length !== dims) {
      return `embed returned vectors of different lengths (${dims} and ${v.length})`;
    }
    dims = v.length;
    const row: number[] = new Array(v.length);
    let nonZero = false;
    for (let d = 0; d < v.length; d++) {
      const x = v[d];
      if (typeof x !== "number" || !Number.isFinite(x)) {
        return `embed returned a non-finite value at position ${d} of vector ${i}`;
      }
      if (x !== 0) nonZero = true;
      row[d] = x;
    }
    if (!nonZero) return `embed returned a zero vector for text ${i}: its cosine is undefined`;
    out.push(row);
  }
  return out;
}

/** Cosine similarity of two non-zero vectors of equal length (each scaled by its largest entry first, so no square overflows). */
export function cosine(a: readonly number[], b: readonly number[]): number {
  let sa = 0;
  let sb = 0;
  for (let d = 0; d < a.length; d++) {
    sa = Math.max(sa, Math.abs(a[d] as number));
    sb = Math.max(sb, Math.abs(b[d] as number));
  }
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let d = 0; d < a.length; d++) {
    const x = (a[d] as number) / sa;
    const y = (b[d] as number) / sb;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return dot / Math.sqrt(na * nb);
}
