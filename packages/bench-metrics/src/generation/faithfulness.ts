import { type Metric, type MetricInput, MetricUnavailableError } from "@fastrag/bench-core";
import { answerOf, chunkAt, expectRetrieved, questionOf, sampleOf } from "../internal/input.js";
import {
  describeValue,
  functionOption,
  metricName,
  optionsObject,
  timeoutOption,
} from "../internal/options.js";
import {
  JUDGE_OPTIONS,
  type JudgeFunction,
  type JudgeMetricOptions,
  modelCall,
  numbered,
  parseJudgeObject,
} from "./judge.js";

/** What the {@link Faithfulness} prompt is built from. */
export interface FaithfulnessPromptParts {
  readonly question: string;
  readonly answer: string;
  /** The text of each retrieved chunk that has one, in rank order. */
  readonly contexts: readonly string[];
}

/**
 * The built-in prompt of {@link Faithfulness}.
 *
 * It asks the judge to split the answer into its factual claims and to say, for each, whether
 * the retrieved passages support it, replying with one JSON object
 * `{"claims": [{"claim": "<text>", "supported": true | false}, …]}` and nothing else.
 */
export function faithfulnessPrompt(parts: FaithfulnessPromptParts): string {
  return `You check whether an answer is supported by the passages it was written from.

<question>
${parts.question}
</question>

<passages>
${numbered(parts.contexts)}
</passages>

<answer>
${parts.answer}
</answer>

Split the answer into its individual factual claims. For each claim, decide whether the
passages state or directly imply it. Use only the passages, not your own knowledge. A
claim the passages do not mention is not supported.

Reply with exactly one JSON object and nothing else:
{"claims": [{"claim": "<the claim>", "supported": true or false}]}`;
}

/**
 * `faithfulness`: the share of the answer's claims that the retrieved text supports, in [0, 1],
 * according to an LLM judge (see {@link faithfulnessPrompt}). It measures grounding, not
 * truth: an answer true to the world but absent from the passages is unfaithful.
 *
 * The reply must be one JSON object with a `claims` array of `{claim: string, supported:
 * boolean}` (optionally inside a ```json fence). The score is supported / total claims.
 * Throws a `MetricUnavailableError` (the sample records `null` and the reason, never 0) when the
 * reply is unparsable, when it lists no claim, or when no retrieved chunk carries `text`.
 *
 * With `timeoutMs`, the limit applies to each judge call, not to the sample: should the metric
 * make more than one call for a sample, each may take up to `timeoutMs`.
 */
export class Faithfulness implements Metric {
  readonly name: string;
  readonly higherIsBetter: boolean = true;
  readonly needsRelevantIds: boolean = false;
  readonly needsAnswer: boolean = true;
  /** It quotes the retrieved chunks' text: a saved result rescores with it only when kept. */
  readonly needsChunkText: boolean = true;
  private readonly judge: JudgeFunction;
  private readonly prompt: (parts: FaithfulnessPromptParts) => string;
  private readonly timeoutMs: number | undefined;

  /**
   * @throws {ConfigurationError} when `judge` (or a given `prompt`) is not a function, or a given
   * `timeoutMs` is not a positive number of milliseconds.
   */
  constructor(options: JudgeMetricOptions<FaithfulnessPromptParts>) {
    const o = optionsObject("Faithfulness", options, true, JUDGE_OPTIONS) as Partial<
      JudgeMetricOptions<FaithfulnessPromptParts>
    >;
    this.judge = functionOption("Faithfulness", "judge", o.judge);
    this.prompt =
      o.prompt === undefined
        ? faithfulnessPrompt
        : functionOption("Faithfulness", "prompt", o.prompt);
    this.name = metricName("Faithfulness", o.name, "faithfulness");
    this.timeoutMs = timeoutOption("Faithfulness", o.timeoutMs);
  }

  /**
   * @throws {MetricUnavailableError} for an unparsable reply, no claims, no retrieved text, or a
   * judge call that outlasts `timeoutMs` (the limit applies to each judge call).
   * @throws whatever the judge throws (the runner records it as the reason).
   * @throws {ConfigurationError} for a malformed input (see the package README).
   */
  async score(input: MetricInput): Promise<number | null> {
    const sample = sampleOf("Faithfulness", input);
    const answer = answerOf("Faithfulness", input);
    if (answer === null) return null;
    const question = questionOf("Faithfulness", sample);
    const retrieved = input.retrieved;
    expectRetrieved("Faithfulness", retrieved);
    const contexts: string[] = [];
    for (let i = 0; i < retrieved.length; i++) {
      const text = chunkAt("Faithfulness", retrieved, i).text;
      if (typeof text === "string" && text.trim() !== "") contexts.push(text);
    }
    if (contexts.length === 0) {
      throw new MetricUnavailableError(
        `no retrieved chunk carries text (${input.retrieved.length} retrieved): faithfulness needs the passages`,
      );
    }
    const prompt = this.prompt({ question, answer, contexts });
    const reply = parseJudgeObject(
      await modelCall("judge", this.timeoutMs, input, (o) => this.judge(prompt, o)),
    );
    const claims = reply.claims;
    if (!Array.isArray(claims)) {
      throw new MetricUnavailableError(
        `unparsable judge reply: expected "claims" to be an array, found ${describeValue(claims)}`,
      );
    }
    if (claims.length === 0) {
      throw new MetricUnavailableError("the judge found no claim in the answer");
    }
    let supported = 0;
    for (let i = 0; i < claims.length; i++) {
      const c: unknown = claims[i];
      const verdict =
        typeof c === "object" && c !== null ? (c as Record<string, unknown>).supported : undefined;
      if (typeof verdict !== "boolean") {
        throw new MetricUnavailableError(
          `unparsable judge reply: expected claims[${i}].supported to be true or false, found ${describeValue(verdict)}`,
        );
      }
      if (verdict) supported++;
    }
    return supported / claims.length;
  }
}
