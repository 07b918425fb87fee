/**
 * The official SQuAD v2.0 answer normalization and scores (evaluate-v2.0.py), reproduced
 * character for character, including its Unicode behaviour:
 *
 * - `lower()`: Unicode lowercasing (JavaScript's `toLowerCase` agrees, final sigma included).
 * - punctuation: only the 32 ASCII characters of Python's `string.punctuation` are removed, so
 *   "Beyoncé" keeps its accent and "“quoted”" keeps its curly quotes.
 * - articles: `re.sub(r'\b(a|an|the)\b', ' ', text)` where Python's `\b` is Unicode-aware (a word
 *   character is a letter, a digit or `_` of any script), unlike JavaScript's ASCII `\b`.
 * - whitespace: `' '.join(text.split())` where `str.split()` splits on Python's whitespace set,
 *   which differs from JavaScript's `\s` (it has U+001C–U+001F and U+0085, and lacks U+FEFF).
 */

import { expectedAnswerAt } from "./input.js";

const PUNCTUATION = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g;
const ARTICLES = /(?<![\p{L}\p{N}_])(?:a|an|the)(?![\p{L}\p{N}_])/gu;
// Python's str.isspace() characters.
const PY_WHITESPACE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: Python counts U+001C–U+001F as whitespace.
  /[\t\n\v\f\r\u001c-\u001f \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;

/** SQuAD's `normalize_answer`. */
export function normalizeAnswer(text: string): string {
  return squadTokens(text).join(" ");
}

/** SQuAD's `get_tokens`: the normalized answer split on whitespace. */
export function squadTokens(text: string): string[] {
  const s = text.toLowerCase().replace(PUNCTUATION, "").replace(ARTICLES, " ");
  const parts = s.split(PY_WHITESPACE);
  // split() on a regex yields "" at the ends when the text starts or ends with whitespace.
  let start = 0;
  let end = parts.length;
  if (end > 0 && parts[0] === "") start = 1;
  if (end > start && parts[end - 1] === "") end--;
  return start === 0 && end === parts.length ? parts : parts.slice(start, end);
}

/**
 * The gold answers SQuAD v2 scores against: those that normalize to a non-empty string, or `[""]`
 * when none does (an unanswerable question). `null` when there are no expected answers at all.
 *
 * @throws {ConfigurationError} naming `metric` when an expected answer is not a string.
 */
export function goldAnswers(expected: readonly string[], metric: string): readonly string[] | null {
  if (expected.length === 0) return null;
  const kept: string[] = [];
  for (let i = 0; i < expected.length; i++) {
    const answer = expectedAnswerAt(metric, expected, i);
    if (normalizeAnswer(answer) !== "") kept.push(answer);
  }
  return kept.length > 0 ? kept : [""];
}

/** SQuAD's `compute_exact`: 1 when the normalized strings are equal. */
export function exactMatchScore(gold: string, prediction: string): number {
  return normalizeAnswer(gold) === normalizeAnswer(prediction) ? 1 : 0;
}

/**
 * SQuAD's `compute_f1`: token-bag overlap F1. When either side has no tokens, 1 if both have
 * none, else 0.
 */
export function tokenF1Score(gold: string, prediction: string): number {
  return tokenF1(squadTokens(gold), squadTokens(prediction));
}

/** F1 of two token lists as bags (multisets). */
export function tokenF1(goldTokens: readonly string[], predTokens: readonly string[]): number {
  if (goldTokens.length === 0 || predTokens.length === 0) {
    return goldTokens.length === predTokens.length ? 1 : 0;
  }
  const counts = new Map<string, number>();
  for (const t of goldTokens) counts.set(t, (counts.get(t) ?? 0) + 1);
  let same = 0;
  for (const t of predTokens) {
    const c = counts.get(t);
    if (c !== undefined && c > 0) {
      same++;
      counts.set(t, c - 1);
    }
  }
  if (same === 0) return 0;
  const precision = (1.0 * same) / predTokens.length;
  const recall = (1.0 * same) / goldTokens.length;
  return (2 * precision * recall) / (precision + recall);
}
