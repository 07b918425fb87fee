// SQuAD v2's quirks in flat files: unanswerable questions and how they are graded. The nested
// SQuAD JSON is read in formats/squad.ts; this is the same reading for records and rows.

import type { RawRecord } from "./raw-record.js";
import type { RecordPositions } from "./record-positions.js";

const hasOwn = Object.hasOwn;

/** SQuAD's answers columns after Hugging Face's `Dataset.flatten()`. */
const FLAT_SQUAD_TEXT = "answers.text";
const FLAT_SQUAD_START = "answers.answer_start";

/**
 * SQuAD v2's unanswerable flag, as a flat export of its questions keeps it (pandas'
 * `json_normalize` of `data[].paragraphs[].qas[]`, or a CSV/JSONL written from it).
 */
export const IS_IMPOSSIBLE = "is_impossible";

/**
 * The expected answers of unanswerable questions, file by file: SQuAD v2 grades them against the
 * empty answer. Rows flagged unanswerable that have answers keep them (the official evaluation
 * grades those), and {@link warning} names the first of them.
 */
export class UnanswerableQuestions {
  private first:
    | { readonly where: string; readonly column: string; readonly answers: string[] }
    | undefined;
  private count = 0;

  /**
   * The answers to keep for one record, `expectedAnswers` as read from `record.answers`.
   * `answersColumn` is the column answers are read from; `record.metadata` holds its extra
   * columns, and `record.impossible` its `is_impossible` value when that column is not read as a
   * field.
   */
  answersOf(
    expectedAnswers: string[],
    record: RawRecord,
    answersColumn: string | undefined,
    positions: RecordPositions,
  ): string[] {
    const { answers: rawAnswers, metadata, impossible: rawImpossible } = record;
    // SQuAD v2 flattened by Hugging Face's `Dataset.flatten()`: an unanswerable question has
    // `answers.text` [] beside `answers.answer_start` [], and is graded against the empty answer,
    // as the same answers object unflattened is ({"text": [], "answer_start": []}).
    if (
      expectedAnswers.length === 0 &&
      rawAnswers !== undefined &&
      rawAnswers !== null &&
      rawAnswers !== "" &&
      answersColumn === FLAT_SQUAD_TEXT &&
      metadata !== undefined &&
      hasOwn(metadata, FLAT_SQUAD_START)
    ) {
      expectedAnswers = [""];
    }
    // SQuAD v2 flattened to one record per question: an unanswerable question has `answers` []
    // (its `plausible_answers` are never gold) and `is_impossible` true, and is graded against
    // the empty answer, as the nested SQuAD loader reads it. A row that has answers as well says
    // two things: the answers are kept, as the official evaluation grades against them (it
    // never reads `is_impossible`), and a warning names the row.
    if (
      rawImpossible !== undefined &&
      isTrueFlag(rawImpossible) &&
      answersColumn !== undefined &&
      !(expectedAnswers.length === 1 && expectedAnswers[0] === "")
    ) {
      if (expectedAnswers.length > 0) {
        this.count++;
        this.first ??= {
          where: positions.at(record.position, record.label),
          column: answersColumn,
          answers: expectedAnswers,
        };
      } else {
        expectedAnswers = [""];
      }
    }
    return expectedAnswers;
  }

  /** The warning for rows flagged unanswerable that have answers; `undefined` when none did. */
  warning(unit: string): string | undefined {
    const first = this.first;
    if (first === undefined) return undefined;
    const more = this.count - 1;
    return impossibleWithAnswers({
      where: first.where,
      flag: `column "${IS_IMPOSSIBLE}"`,
      field: `column "${first.column}"`,
      answers: first.answers,
      more,
      units: more === 1 ? unit : `${unit}s`,
    });
  }
}

/**
 * The warning for questions flagged unanswerable (SQuAD v2's `is_impossible`) that have answers:
 * the answers are kept, since the official evaluation grades against them and never reads the
 * flag. `where` names the first such question; `more` counts the others, in `units`.
 */
export function impossibleWithAnswers(warning: {
  readonly where: string;
  readonly flag: string;
  readonly field: string;
  readonly answers: readonly string[];
  readonly more: number;
  readonly units: string;
}): string {
  const { where, flag, field, answers, more, units } = warning;
  const shown = answers.slice(0, 3).map((a) => JSON.stringify(a));
  return (
    `${where}: ${flag} says the question is unanswerable, but ${field} holds ${answers.length === 1 ? "an answer" : `${answers.length} answers`} (${shown.join(", ")}${answers.length > 3 ? ", …" : ""}); ` +
    `the answers were kept as the gold, as the official SQuAD v2 evaluation grades them (it never reads ${IS_IMPOSSIBLE})` +
    (more > 0 ? `, and so were those of ${more} more such ${units}` : "") +
    `. If the question is unanswerable, empty its answers`
  );
}

/**
 * True for an `is_impossible` cell that says "unanswerable": JSON/YAML/Parquet `true`, `1`, or
 * the text pandas and others write for it in CSV (`True`, `true`, `1`).
 */
export function isTrueFlag(value: unknown): boolean {
  if (value === true || value === 1) return true;
  if (typeof value === "bigint") return value === BigInt(1);
  if (typeof value !== "string") return false;
  const text = value.trim();
  return text === "1" || text.toLowerCase() === "true";
}
