// What a judge metric asked and was told (a sample's `judgments`, DESIGN §11), made readable: each
// kept step becomes a heading, a list of statements / claims / questions with the judge's verdict
// and reason, and the reply's other fields as key/value text. The HTML report and the CLI's
// `diff --sample … --judgments` both render these views, so the two read a step alike.
import type { JudgmentStep } from "@fastrag/bench-core";

/** One statement, claim or generated question of a judge's reply, as a person reads it. */
export interface JudgmentItem {
  /** The statement, claim or question; `""` where the step judges no text of its own (`context_verdict`). */
  readonly text: string;
  /**
   * The judge's verdict: `true` for a pass (supported, attributed, useful, committal, a true
   * positive), `false` for a fail. Absent where the step gives none (a list of statements or
   * claims) or where the reply's verdict was neither 0 nor 1 (`label` then shows it).
   */
  readonly verdict?: boolean;
  /** The verdict in words: `supported`, `not supported`, `attributed`, `TP`, `noncommittal`… */
  readonly label?: string;
  /** The judge's reason, when it gave one. */
  readonly reason?: string;
}

/** One kept step of a judge metric, made readable. */
export interface JudgmentView {
  readonly step: string;
  readonly attempt: number;
  readonly about?: string;
  /** A heading: `verdicts against the retrieved context`, `question generation (attempt 2)`. */
  readonly title: string;
  /** The reply's statements, claims or questions, with their verdicts where the step gives them. */
  readonly items: readonly JudgmentItem[];
  /**
   * The reply's fields that `items` does not show, as `[key, text]` (strings as they are, other
   * values as JSON): every field of a step this module does not know, and any extra field of one
   * it does.
   */
  readonly fields: readonly (readonly [key: string, value: string])[];
  /** Items with a `true` and a `false` verdict. */
  readonly passed: number;
  readonly failed: number;
}

type Reply = Readonly<Record<string, unknown>>;

/** How a known step's reply turns into items: the fields it reads, and the items it makes. */
interface StepReader {
  readonly title: (about: string | undefined) => string;
  /** The reply fields the items show; the others go to `fields`. */
  readonly reads: readonly string[];
  /** `undefined` when the reply does not have the shape the step defines (shown generically). */
  readonly items: (reply: Reply) => JudgmentItem[] | undefined;
}

const suffix = (word: string, about: string | undefined) =>
  about === undefined ? "" : ` ${word} ${about}`;

const READERS: Readonly<Record<string, StepReader>> = {
  statements: {
    title: (about) => `statements${suffix("of", about)}`,
    reads: ["statements"],
    items: (r) => texts(r.statements),
  },
  verdicts: {
    title: (about) => `verdicts${suffix("against", about)}`,
    reads: ["verdicts"],
    items: (r) => judged(r.verdicts, "statement", "verdict", ["supported", "not supported"]),
  },
  context_verdict: {
    title: (about) => `context verdict${suffix("on", about)}`,
    reads: ["verdict", "reason"],
    items: (r) => {
      if (!("verdict" in r)) return undefined;
      return [item("", r.verdict, ["useful", "not useful"], r.reason)];
    },
  },
  attributions: {
    title: (about) => `attributions${suffix("to", about)}`,
    reads: ["attributions"],
    items: (r) =>
      judged(r.attributions, "statement", "attributed", ["attributed", "not attributed"]),
  },
  question_generation: {
    title: (about) => `question generation${suffix("from", about)}`,
    reads: ["question", "noncommittal"],
    items: (r) => {
      if (!("question" in r)) return undefined;
      // noncommittal 1 is the fail: an evasive answer, which zeroes answer relevancy.
      const v = r.noncommittal === 0 ? 1 : r.noncommittal === 1 ? 0 : r.noncommittal;
      return [item(textOf(r.question), v, ["committal", "noncommittal"], undefined)];
    },
  },
  claims: {
    title: (about) => `claims${suffix("of", about)}`,
    reads: ["claims"],
    items: (r) => texts(r.claims),
  },
  classification: {
    title: (about) => `classification${about === undefined ? "" : ` (${about})`}`,
    reads: ["TP", "FP", "FN"],
    items: (r) => {
      const out: JudgmentItem[] = [];
      for (const [key, pass] of [
        ["TP", 1],
        ["FP", 0],
        ["FN", 0],
      ] as const) {
        const list = r[key];
        if (list === undefined) continue;
        if (!Array.isArray(list)) return undefined;
        for (const entry of list) {
          const o: Record<string, unknown> = isRecord(entry) ? entry : { statement: entry };
          out.push(item(textOf(o.statement), pass, [key, key], o.reason));
        }
      }
      return out;
    },
  },
};

/**
 * The steps one judge metric kept for a sample (`SampleResult.judgments[metric]`, in the order it
 * asked them), made readable. A step of a known name (`statements`, `verdicts`,
 * `context_verdict`, `attributions`, `question_generation`, `claims`, `classification`) lists its
 * statements with their verdicts and reasons; any other step, or a reply of another shape, shows
 * its fields as key/value text. A step's attempt is named in its title when the metric asked that
 * step more than once on purpose (answer relevancy's `strictness`).
 *
 * @example
 * ```ts
 * const [v] = judgmentViews(sample.judgments?.faithfulness ?? []);
 * // v.title "verdicts against the retrieved context"; v.items [{ text, verdict: true, label: "supported", reason }]
 * ```
 */
export function judgmentViews(steps: readonly JudgmentStep[]): JudgmentView[] {
  const attempts = new Set<string>();
  for (const s of steps) if (s.attempt !== 0) attempts.add(s.step);
  return steps.map((s) => judgmentView(s, attempts.has(s.step)));
}

function judgmentView(s: JudgmentStep, showAttempt: boolean): JudgmentView {
  const reader = Object.hasOwn(READERS, s.step) ? READERS[s.step] : undefined;
  const reply: Reply = isRecord(s.reply) ? s.reply : {};
  const items = reader?.items(reply);
  const shown = items === undefined ? [] : (reader as StepReader).reads;
  const fields: [string, string][] = [];
  for (const key of Object.keys(reply)) {
    if (!shown.includes(key)) fields.push([key, textOf(reply[key])]);
  }
  let passed = 0;
  let failed = 0;
  for (const i of items ?? []) {
    if (i.verdict === true) passed++;
    else if (i.verdict === false) failed++;
  }
  const base = reader === undefined ? `${s.step}${suffix("—", s.about)}` : reader.title(s.about);
  return {
    step: s.step,
    attempt: s.attempt,
    ...(s.about === undefined ? {} : { about: s.about }),
    title: showAttempt ? `${base} (attempt ${s.attempt})` : base,
    items: items ?? [],
    fields,
    passed,
    failed,
  };
}

/** A list of strings (statements, claims); `undefined` when it is not a list. */
function texts(value: unknown): JudgmentItem[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.map((v) => ({ text: textOf(v) }));
}

/** A list of `{[textKey], reason, [verdictKey]: 0 | 1}`; `undefined` when it is not a list. */
function judged(
  value: unknown,
  textKey: string,
  verdictKey: string,
  labels: readonly [pass: string, fail: string],
): JudgmentItem[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.map((entry) => {
    if (!isRecord(entry)) return { text: textOf(entry) };
    return item(textOf(entry[textKey]), entry[verdictKey], labels, entry.reason);
  });
}

function item(
  text: string,
  verdict: unknown,
  labels: readonly [pass: string, fail: string],
  reason: unknown,
): JudgmentItem {
  const out: { -readonly [K in keyof JudgmentItem]: JudgmentItem[K] } = { text };
  if (verdict === 1 || verdict === true) {
    out.verdict = true;
    out.label = labels[0];
  } else if (verdict === 0 || verdict === false) {
    out.verdict = false;
    out.label = labels[1];
  } else if (verdict !== undefined) {
    out.label = textOf(verdict);
  }
  if (reason !== undefined && reason !== null && reason !== "") out.reason = textOf(reason);
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A string as it is; anything else as JSON (a value JSON cannot write, as `String` writes it). */
function textOf(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined) return "";
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
