// The file-wide warnings about columns, given once a file is read: a column of passage text read
// as ids, a misspelled gold column kept as metadata, no gold column at all.
import { COLUMN_ALIASES, type SampleField } from "./column-mapping.js";

/** How many samples the passage-text check inspects. */
const TEXT_PROBE_LIMIT = 200;

const WHITESPACE = /\s/;

/**
 * Counts, over the first samples with relevant ids, those whose ids look like passages: a
 * `contexts` column of text read as ids makes every retrieval metric score 0.
 */
export class PassageTextProbe {
  private probed = 0;
  private textLike = 0;

  /** Looks at one sample's relevant ids (only the first {@link TEXT_PROBE_LIMIT} count). */
  inspect(relevantIds: readonly string[]): void {
    if (relevantIds.length > 0 && this.probed < TEXT_PROBE_LIMIT) {
      this.probed++;
      if (looksLikeText(relevantIds)) this.textLike++;
    }
  }

  /** The warning when half the samples inspected hold text; `undefined` otherwise. */
  warning(source: string, column: string | undefined): string | undefined {
    if (this.probed === 0 || this.textLike * 2 < this.probed) return undefined;
    return (
      `${source}: column "${column ?? "relevant_ids"}" (read as relevant_ids) holds passage text, not ids, in ${this.textLike} of the ${this.probed} samples checked. ` +
      `Retrieval metrics (recall, precision, mrr, ndcg, …) match retrieved chunk ids against it and will score 0. ` +
      `Map a column of chunk or document ids with { relevantIds: "<column>" }, or ignore it with { relevantIds: null }.`
    );
  }
}

/** A passage, not an id: ids do not contain spaces, passages are sentences. */
function looksLikeText(ids: readonly string[]): boolean {
  let text = 0;
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    if (id.length > 40 && WHITESPACE.test(id)) text++;
  }
  return text * 2 > ids.length;
}

/**
 * The warnings about gold columns, for a file of `sampleCount` samples: an extra column whose
 * name is a near miss of a gold field's alias (`expected_anwsers`), and no column of answers or
 * ids at all. `explicit` holds the fields the mapping names, `columnOf` the resolved columns.
 */
export function goldColumnWarnings(
  source: string,
  sampleCount: number,
  explicit: ReadonlyMap<SampleField, string | null>,
  columnOf: ReadonlyMap<SampleField, string>,
  extras: readonly string[],
): string[] {
  const warnings: string[] = [];
  if (sampleCount === 0) return warnings;
  // A column kept as metadata whose name is a near miss of a field's alias that was not found
  // (`expected_anwsers`) is almost surely that field, misspelled.
  for (const field of ["expectedAnswers", "relevantIds", "relevance"] as const) {
    if (explicit.has(field) || columnOf.has(field)) continue;
    // Graded judgments give the relevant ids too.
    if (field === "relevantIds" && columnOf.has("relevance")) continue;
    for (const column of extras) {
      const alias = nearMiss(column, NEAR_MISS_ALIASES[field]);
      if (alias === undefined) continue;
      warnings.push(
        `${source}: column "${column}" was kept as metadata, but its name is close to "${alias}" (${NATIVE_NAMES[field]}). If it holds the ${NATIVE_NAMES[field]}, map it: { ${field}: ${JSON.stringify(column)} }`,
      );
      break;
    }
  }
  // No column holds answers or ids (none found, none mapped, none mapped away with null): say
  // so, for a gold column of a name we do not know is the likeliest cause.
  if (
    !explicit.has("expectedAnswers") &&
    !explicit.has("relevantIds") &&
    !columnOf.has("expectedAnswers") &&
    !columnOf.has("relevantIds") &&
    // Graded judgments alone give the relevant ids (grade > 0).
    !columnOf.has("relevance")
  ) {
    warnings.push(
      `${source}: no column of expected answers or relevant ids was found, so answer and retrieval metrics will score no sample (latency and other metrics that need neither are unaffected). ` +
        (extras.length > 0
          ? `Columns kept as metadata: ${extras.map((c) => `"${c}"`).join(", ")}. `
          : "") +
        `If one holds the gold answers or ids, map it: { expectedAnswers: "<column>" } or { relevantIds: "<column>" }; { expectedAnswers: null } says there are none and silences this.`,
    );
  }
  return warnings;
}

/**
 * The aliases a near miss is measured against. Not `contexts` and `reference_contexts`: a
 * `context` column (SQuAD, HotpotQA) is passage text, not a misspelled column of ids.
 */
const NEAR_MISS_ALIASES = {
  expectedAnswers: COLUMN_ALIASES.expectedAnswers,
  relevantIds: COLUMN_ALIASES.relevantIds.filter((a) => !a.endsWith("contexts")),
  relevance: COLUMN_ALIASES.relevance,
} as const;

const NATIVE_NAMES = {
  expectedAnswers: "expected answers",
  relevantIds: "relevant ids",
  relevance: "relevance grades",
} as const;

/**
 * The alias that `column` is a near miss of: the same letters but for case, `_`, `-` and spaces
 * (`groundtruth`), or, for an alias of at least 6 letters, one edit away (`relevant_id`) or two
 * in a name of the same length (`expected_anwsers`). `undefined` when there is none.
 */
export function nearMiss(column: string, aliases: readonly string[]): string | undefined {
  const key = squash(column);
  for (const alias of aliases) {
    const target = squash(alias);
    if (key === target) return alias;
    if (target.length < 6) continue;
    // One edit, or two in a name of the same length (swapped letters: "anwsers"). Two letters
    // more or fewer is more often another word than a typo: incorrect_answer, correct_answer.
    const distance = editDistance(key, target, 2);
    if (distance === 1 || (distance === 2 && key.length === target.length)) return alias;
  }
  return undefined;
}

/** The name lower-cased, without spaces, `_` and `-`. */
function squash(name: string): string {
  return name.toLowerCase().replace(/[\s_-]+/g, "");
}

/** Levenshtein distance, or `cap + 1` as soon as it must exceed `cap`. */
function editDistance(a: string, b: string, cap: number): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const v = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      current.push(v);
      if (v < best) best = v;
    }
    if (best > cap) return cap + 1;
    previous = current;
  }
  return previous[b.length] as number;
}
