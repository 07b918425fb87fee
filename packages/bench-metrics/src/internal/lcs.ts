/** Length of the longest common subsequence of two token lists, in O(n·m) time and O(m) space. */
export function lcsLength(a: readonly string[], b: readonly string[]): number {
  const m = b.length;
  if (a.length === 0 || m === 0) return 0;
  let prev = new Int32Array(m + 1);
  let cur = new Int32Array(m + 1);
  for (let i = 0; i < a.length; i++) {
    const ai = a[i];
    for (let j = 0; j < m; j++) {
      if (ai === b[j]) cur[j + 1] = (prev[j] as number) + 1;
      else {
        const up = prev[j + 1] as number;
        const left = cur[j] as number;
        cur[j + 1] = Math.max(up, left);
      }
    }
    const t = prev;
    prev = cur;
    cur = t;
  }
  return prev[m] as number;
}

const NON_WORD = /[^\p{L}\p{N}]+/u;

/**
 * ROUGE tokens: lowercased, split on every character that is not a letter or a digit (of any
 * script). On ASCII text this is the tokenizer of Google's `rouge-score` (without stemming).
 */
export function rougeTokens(text: string): string[] {
  const parts = text.toLowerCase().split(NON_WORD);
  const out: string[] = [];
  for (const p of parts) if (p !== "") out.push(p);
  return out;
}

/**
 * ROUGE-L F-measure of a candidate against one reference: precision = LCS / |candidate|,
 * recall = LCS / |reference|, F_β = (1 + β²)·P·R / (R + β²·P), and 0 when the LCS is empty.
 */
export function rougeLF(
  reference: readonly string[],
  candidate: readonly string[],
  beta: number,
): number {
  const lcs = lcsLength(reference, candidate);
  if (lcs === 0) return 0;
  const p = lcs / candidate.length;
  const r = lcs / reference.length;
  const b2 = beta * beta;
  return ((1 + b2) * p * r) / (r + b2 * p);
}
