import type { Gains } from "./judgments.js";
import { isGraded, type Judgments } from "./kernels.js";

/**
 * Reference builder of the ideal gains (as an array, from a Set): the metric classes use
 * {@link idealGainsOf}, which tests check against it. `relevant` holds the distinct relevant ids.
 */
export function buildIdealGains(
  relevant: ReadonlySet<string>,
  relevance: Readonly<Record<string, number>> | undefined,
): number[] {
  const ideal: number[] = [];
  if (relevance !== undefined) {
    // Object.keys and a look-up per key (docs/decisions/core-hot-paths.md).
    const ids = Object.keys(relevance);
    for (let i = 0; i < ids.length; i++) {
      const grade = relevance[ids[i] as string] as number;
      if (grade > 0) ideal.push(grade);
    }
    for (const id of relevant) if (!isGraded(relevance, id)) ideal.push(1);
  } else {
    for (let i = 0; i < relevant.size; i++) ideal.push(1);
  }
  if (ideal.length > 1) ideal.sort(descending);
  return ideal;
}

/**
 * nDCG gains of a sample as an id → gain map: the grades of `relevance` when present (grades ≤ 0
 * give no gain); a relevant id that `relevance` does not grade has gain 1, and without `relevance`
 * every relevant id has gain 1. (The metric classes look gains up with `ndcgGraded` instead.)
 */
export function buildGains(
  relevantIds: readonly string[],
  relevance: Readonly<Record<string, number>> | undefined,
): Gains {
  const gains = new Map<string, number>();
  const ideal: number[] = [];
  if (relevance !== undefined) {
    const ids = Object.keys(relevance);
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i] as string;
      const grade = relevance[id] as number;
      if (grade > 0) {
        gains.set(id, grade);
        ideal.push(grade);
      }
    }
    for (let i = 0; i < relevantIds.length; i++) {
      const id = relevantIds[i] as string;
      if (!isGraded(relevance, id) && !gains.has(id)) {
        gains.set(id, 1);
        ideal.push(1);
      }
    }
  } else {
    for (let i = 0; i < relevantIds.length; i++) {
      const id = relevantIds[i] as string;
      if (!gains.has(id)) {
        gains.set(id, 1);
        ideal.push(1);
      }
    }
  }
  ideal.sort(descending);
  return { gains, idealGains: ideal };
}

/** Binary and graded judgments at once (for the kernel benchmark and tests). */
export function buildJudgments(
  relevantIds: readonly string[],
  relevance: Readonly<Record<string, number>> | undefined,
): Judgments {
  return { relevant: new Set(relevantIds), ...buildGains(relevantIds, relevance) };
}

function descending(a: number, b: number): number {
  return b - a;
}
