/**
 * Sorts one query's entries into trec_eval's order, in place in the parallel columns: insertion
 * sort for short rankings; otherwise a native sort of numeric keys (float order, then position),
 * then each run of equal floats by docno (insertion sort for short runs, a comparator sort for
 * long ones, so a ranking of thousands of tied scores stays O(n log n)). Scratch space is allocated once, for
 * the longest query.
 */
export class RankSorter {
  private readonly keys: Float64Array;
  private view: Float64Array = new Float64Array(0);
  private readonly ids: Int32Array;
  private readonly values: Float64Array;

  constructor(longest: number) {
    this.keys = new Float64Array(longest);
    this.ids = new Int32Array(longest);
    this.values = new Float64Array(longest);
  }

  sort(
    docIds: Int32Array,
    scores: Float64Array,
    names: readonly string[],
    from: number,
    to: number,
  ): void {
    const length = to - from;
    // Runs are usually written in rank order already: one pass confirms it.
    let sorted = true;
    for (let i = from + 1; i < to; i++) {
      if (
        ranksBefore(
          names,
          docIds[i] as number,
          scores[i] as number,
          docIds[i - 1] as number,
          scores[i - 1] as number,
        )
      ) {
        sorted = false;
        break;
      }
    }
    if (sorted) return;
    if (length <= 16) {
      insertionSort(docIds, scores, names, from, to);
      return;
    }
    if (length >= POSITION_SPAN) {
      comparatorSort(docIds, scores, names, from, to);
      return;
    }
    // A native numeric sort of packed keys: the float's order (descending) above the position.
    // Exact in a double: 32 bits of float order × 2^20 positions < 2^53.
    // Queries mostly share one length: the view of that length is made once, not per query.
    if (this.view.length !== length) this.view = this.keys.subarray(0, length);
    const keys = this.view;
    for (let i = 0; i < length; i++) {
      keys[i] = (0xffffffff - floatOrder(scores[from + i] as number)) * POSITION_SPAN + i;
    }
    keys.sort();
    const ids = this.ids;
    const values = this.values;
    for (let i = 0; i < length; i++) {
      // Division by a power of two is exact; `%` on doubles would be a slow fmod.
      const key = keys[i] as number;
      const high = Math.floor(key / POSITION_SPAN);
      const k = from + (key - high * POSITION_SPAN);
      keys[i] = high;
      ids[i] = docIds[k] as number;
      values[i] = scores[k] as number;
    }
    docIds.set(ids.subarray(0, length), from);
    scores.set(values.subarray(0, length), from);
    // Equal floats are now adjacent, in file order: order each such run by docno.
    let start = 0;
    for (let i = 1; i <= length; i++) {
      if (i === length || keys[i] !== keys[start]) {
        const run = i - start;
        if (run > 16) comparatorSort(docIds, scores, names, from + start, from + i);
        else if (run > 1) insertionSort(docIds, scores, names, from + start, from + i);
        start = i;
      }
    }
  }
}

// Positions within one query take the low 20 bits of a sort key; longer queries (never seen in
// practice) are sorted with a comparator.
const POSITION_SPAN = 1 << 20;
const FLOAT = new Float32Array(1);
const FLOAT_BITS = new Uint32Array(FLOAT.buffer);

/** The single-precision float of `score` as a uint32 that sorts as the float does (−0 = +0). */
function floatOrder(score: number): number {
  FLOAT[0] = score;
  let bits = FLOAT_BITS[0] as number;
  // −0 as a float: a −0 double, or a tiny negative score that rounds to it (−1e-50).
  if (bits === 0x80000000) bits = 0;
  return bits >= 0x80000000 ? ~bits >>> 0 : (bits | 0x80000000) >>> 0;
}

function comparatorSort(
  docIds: Int32Array,
  scores: Float64Array,
  names: readonly string[],
  from: number,
  to: number,
): void {
  const order: number[] = [];
  for (let i = from; i < to; i++) order.push(i);
  order.sort((x, y) =>
    ranksBefore(
      names,
      docIds[x] as number,
      scores[x] as number,
      docIds[y] as number,
      scores[y] as number,
    )
      ? -1
      : 1,
  );
  const ids = Int32Array.from(order, (k) => docIds[k] as number);
  const values = Float64Array.from(order, (k) => scores[k] as number);
  docIds.set(ids, from);
  scores.set(values, from);
}

function insertionSort(
  docIds: Int32Array,
  scores: Float64Array,
  names: readonly string[],
  from: number,
  to: number,
): void {
  for (let i = from + 1; i < to; i++) {
    const id = docIds[i] as number;
    const score = scores[i] as number;
    let j = i - 1;
    while (j >= from && ranksBefore(names, id, score, docIds[j] as number, scores[j] as number)) {
      docIds[j + 1] = docIds[j] as number;
      scores[j + 1] = scores[j] as number;
      j--;
    }
    docIds[j + 1] = id;
    scores[j + 1] = score;
  }
}

/** True when entry (a, scoreA) ranks before (b, scoreB) in trec_eval's order. */
function ranksBefore(
  names: readonly string[],
  a: number,
  scoreA: number,
  b: number,
  scoreB: number,
): boolean {
  const x = Math.fround(scoreA);
  const y = Math.fround(scoreB);
  if (x !== y) return x > y;
  return compareStrcmp(names[a] as string, names[b] as string) > 0;
}

/** Byte-wise (strcmp) comparison of two strings, as trec_eval compares docnos. */
function compareStrcmp(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Below the surrogates, UTF-16 code unit order is UTF-8 byte order.
    if (x < 0xd800 && y < 0xd800) return x - y;
    return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
  }
  return a.length - b.length;
}
