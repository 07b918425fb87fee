// A ranking's ids de-duplicated (each id at its first rank), with the look-up structures the
// relevant ids are then matched through: hashes and a mask up to SCAN_LIMIT ids, a reused
// open-addressing table up to HASH_LIMIT, else a Set.
import type { RetrievedChunk } from "@fastrag/bench-core";
import { MetricUnavailableError } from "@fastrag/bench-core/internal/base";
import { chunkAt, malformed } from "./input.js";
import { describeValue } from "./options.js";

// Up to this many ids, duplicates and matches are found by comparing ids with each other: first
// a bit per id in a 32-bit mask, then a hash, and only then the strings, so two different ids are
// nearly always told apart without reading either (cheaper than a Set per sample). Past it, a
// hash table or a Set.
export const SCAN_LIMIT: number = 16;

// Up to HASH_LIMIT ranks, duplicates are found with a reused open-addressing table of ranks,
// stamped per call (docs/decisions/core-hot-paths.md); the table then finds relevant ids' ranks.
// Past it, a Set.
export const HASH_LIMIT: number = 1 << 15;
let stamps = new Int32Array(256);
let positions = new Int32Array(256);
let stamp = 0;
let tableMask = 0;

/**
 * Writes the ranked ids, each once at its first position, into `out` (entries 0..m-1) and returns
 * m. Up to SCAN_LIMIT ids it writes their hashes into `hashes`; up to HASH_LIMIT it leaves the
 * table {@link rankOf} reads.
 */
export function dedupe(
  retrieved: readonly RetrievedChunk[],
  byDocument: boolean,
  out: string[],
  hashes: Int32Array,
  metric: string,
): number {
  const n = retrieved.length;
  let m = 0;
  if (n <= SCAN_LIMIT) {
    let mask = 0;
    for (let i = 0; i < n; i++) {
      const id = idAt(retrieved, i, byDocument, metric);
      const h = quickHash(id);
      const bit = 1 << h;
      let j = m;
      if ((mask & bit) !== 0) {
        j = 0;
        while (j < m && (hashes[j] !== h || out[j] !== id)) j++;
      }
      if (j === m) {
        mask |= bit;
        hashes[m] = h;
        out[m++] = id;
      }
    }
  } else if (n <= HASH_LIMIT) {
    let size = 256;
    while (size < 2 * n) size *= 2;
    if (stamps.length < size) {
      stamps = new Int32Array(size);
      positions = new Int32Array(size);
      stamp = 0;
    }
    if (stamp === 0x7fffffff) {
      stamps.fill(0);
      stamp = 0;
    }
    const mark = ++stamp;
    const mask = size - 1;
    tableMask = mask;
    for (let i = 0; i < n; i++) {
      const id = idAt(retrieved, i, byDocument, metric);
      let slot = hashString(id) & mask;
      for (;;) {
        if (stamps[slot] !== mark) {
          stamps[slot] = mark;
          positions[slot] = m;
          out[m++] = id;
          break;
        }
        if (out[positions[slot] as number] === id) break;
        slot = (slot + 1) & mask;
      }
    }
  } else {
    const seen = new Set<string>();
    for (let i = 0; i < n; i++) {
      const id = idAt(retrieved, i, byDocument, metric);
      if (seen.has(id)) continue;
      seen.add(id);
      out[m++] = id;
    }
  }
  return m;
}

/** The rank (0-based) of `id`, whose hashString is `h`, in the ranking dedupe last tabled, or -1. */
export function rankOf(ids: readonly string[], id: string, h: number): number {
  const mark = stamp;
  const mask = tableMask;
  let slot = h & mask;
  while (stamps[slot] === mark) {
    const at = positions[slot] as number;
    if (ids[at] === id) return at;
    slot = (slot + 1) & mask;
  }
  return -1;
}

function idAt(
  retrieved: readonly RetrievedChunk[],
  i: number,
  byDocument: boolean,
  metric: string,
): string {
  const chunk = chunkAt(metric, retrieved, i);
  if (!byDocument) {
    const id = chunk.id;
    if (typeof id !== "string") throw malformed(metric, `retrieved[${i}].id`, "a string", id);
    return id;
  }
  const id = chunk.documentId;
  if (typeof id !== "string") {
    // Absent (or null): the engine did not say, so this sample cannot be scored. Any other value
    // breaks RetrievedChunk's shape, as a non-string id does (the runner refuses such an output).
    if (id !== undefined && id !== null) {
      throw malformed(metric, `retrieved[${i}].documentId`, "a string, or absent", id);
    }
    throw new MetricUnavailableError(
      `level "document" matches by documentId, but the chunk at rank ${i + 1} (id ${describeValue(chunk.id)}) has none`,
    );
  }
  return id;
}

/**
 * A hash that tells most different ids apart before their strings are compared, in constant time:
 * the length and the last code unit (ids mostly differ at the end). Its low 5 bits pick the id's
 * bit in a mask.
 */
export function quickHash(s: string): number {
  const n = s.length;
  return Math.imul(n, 0x9e3779b1) ^ s.charCodeAt(n - 1);
}

/** FNV-1a over UTF-16 code units: a table hash, not a fingerprint. */
export function hashString(s: string): number {
  let h = -2128831035;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h;
}
