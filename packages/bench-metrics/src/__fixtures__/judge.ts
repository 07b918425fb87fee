// Helpers for the judge metrics' tests: step answers built from tables, the replies a step must
// refuse or accept, and the MetricUnavailableError a score rejects with.
import {
  type JudgeReply,
  type JudgingContext,
  type JudgmentStep,
  MetricUnavailableError,
} from "@fastrag/bench-core";
import type { ScriptedStep } from "@fastrag/bench-core/testing";
import { expect } from "vitest";

/** A `statements` step answering from a table of answer text → statements. */
export function statementsFrom(table: Readonly<Record<string, readonly string[]>>): ScriptedStep {
  return ({ answer }: { answer: string }) => {
    const statements = table[answer];
    if (statements === undefined) throw new Error(`no statements for ${JSON.stringify(answer)}`);
    return { statements: [...statements] };
  };
}

/** A `claims` step answering from a table of text → claims. */
export function claimsFrom(table: Readonly<Record<string, readonly string[]>>): ScriptedStep {
  return ({ text }: { text: string }) => {
    const claims = table[text];
    if (claims === undefined) throw new Error(`no claims for ${JSON.stringify(text)}`);
    return { claims: [...claims] };
  };
}

/** A `verdicts` step: verdict 1 on each statement that `supported(context, statement)` says. */
export function verdictsBy(
  supported: (context: string, statement: string) => boolean,
): ScriptedStep {
  return ({ context, statements }: { context: string; statements: readonly string[] }) => ({
    verdicts: statements.map((statement) => ({
      statement,
      reason: "judged",
      verdict: supported(context, statement) ? 1 : 0,
    })),
  });
}

/** A step whose valid answer `step` gives, then `change`d (to make it malformed, or reshaped). */
export function altered(
  step: ScriptedStep,
  change: (valid: Record<string, unknown>) => unknown,
): ScriptedStep {
  return async (input, info) =>
    change((await step(input, info)) as Record<string, unknown>) as JudgeReply;
}

/**
 * Replies every step must refuse, made from a valid one: text that is not JSON, prose around the
 * JSON, two objects, a JSON array, a bare number in JSON, an object missing a field, an object
 * with a field the schema does not have, and a value that is no reply at all.
 */
export const MALFORMED: readonly (readonly [
  string,
  (valid: Record<string, unknown>) => unknown,
])[] = [
  ["text that is not JSON", () => "I think the answer is mostly right."],
  ["prose around the JSON", (v) => `Sure! Here it is: ${JSON.stringify(v)} Hope it helps.`],
  ["two JSON objects", (v) => `${JSON.stringify(v)}\n${JSON.stringify(v)}`],
  ["a JSON array", (v) => JSON.stringify([v])],
  ["a JSON number", () => "0.8"],
  [
    "an object missing a field",
    (v) => Object.fromEntries(Object.entries(v).slice(1)) as Record<string, unknown>,
  ],
  ["an object with an unexpected field", (v) => ({ ...v, confidence: 0.9 })],
  ["an empty text", () => ""],
  ["a number", () => 42],
];

/** Forms of a valid reply every step must accept: the object, its JSON text, fenced or padded. */
export const ACCEPTED: readonly (readonly [string, (valid: Record<string, unknown>) => unknown])[] =
  [
    ["an object", (v) => v],
    ["JSON text", (v) => JSON.stringify(v)],
    ["JSON text with surrounding whitespace", (v) => `\n  ${JSON.stringify(v, null, 2)}  \n`],
    ["a ```json fence", (v) => `\`\`\`json\n${JSON.stringify(v)}\n\`\`\``],
    ["a bare ``` fence", (v) => `\`\`\`\n${JSON.stringify(v)}\n\`\`\``],
  ];

/**
 * The `MetricUnavailableError` that `pending` rejects with, checked to name `step` (in its message,
 * first, and in `.step`). Fails when it resolves or rejects with anything else.
 */
export async function unavailable(
  pending: Promise<unknown> | unknown,
  step: string,
): Promise<MetricUnavailableError> {
  let outcome: unknown;
  try {
    outcome = { value: await pending };
  } catch (error) {
    expect(MetricUnavailableError.isInstance(error), String(error)).toBe(true);
    const e = error as MetricUnavailableError;
    expect(e.step).toBe(step);
    expect(e.message.startsWith(`step ${step}: `), e.message).toBe(true);
    return e;
  }
  throw new Error(
    `expected a MetricUnavailableError of step ${step}, got ${JSON.stringify(outcome)}`,
  );
}

/**
 * A minimal {@link JudgingContext} (what the runner gives a sample): one memo shared by the
 * metrics that score with it, and the steps each kept. For unit tests of sharing without a run.
 */
export function judgingContext(
  kept?: ReadonlyMap<string, Readonly<Record<string, unknown>>>,
): JudgingContext & { readonly steps: Record<string, JudgmentStep[]> } {
  const memo = new Map<string, Promise<unknown>>();
  const steps: Record<string, JudgmentStep[]> = {};
  return {
    steps,
    share<T>(key: string, ask: () => Promise<T>): Promise<T> {
      let pending = memo.get(key) as Promise<T> | undefined;
      if (pending === undefined) {
        pending = ask();
        memo.set(key, pending);
      }
      return pending;
    },
    keep(metric: string): (step: JudgmentStep) => void {
      // Steps in the order they were asked; a place never filled (a failed step) is dropped.
      const list = steps[metric] ?? [];
      steps[metric] = list;
      const at = list.length;
      list.length = at + 1;
      return (step) => {
        list[at] = step;
      };
    },
    ...(kept === undefined ? {} : { kept }),
  };
}
