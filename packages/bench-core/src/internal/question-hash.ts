// A sample's question reduced to 64 bits, so that pairing can check that two runs ask the same
// questions without reading their records.

/** A question's bytes as `save` writes them between the quotes (JSON.stringify's escapes). */
export function canonicalQuestion(question: string): Buffer {
  const json = JSON.stringify(question);
  return Buffer.from(json.slice(1, -1), "utf8");
}

/**
 * Two independent 32-bit hashes (FNV-1a, and a multiply-rotate hash with another seed) of bytes
 * [start, end), written at entries 2·row and 2·row + 1 of `out`. Two questions whose 64 bits agree
 * are taken to be equal: a chance of about 5·10⁻²⁰ per pair that two different ones do.
 */
export function questionHash(
  bytes: Uint8Array,
  start: number,
  end: number,
  out: Int32Array,
  row: number,
): void {
  let a = -2128831035;
  let b = 0x27d4eb2f ^ (end - start);
  for (let i = start; i < end; i++) {
    const c = bytes[i] as number;
    a = Math.imul(a ^ c, 16777619);
    b = Math.imul((b << 5) | (b >>> 27), 0x9e3779b1) ^ c;
  }
  b ^= b >>> 15;
  b = Math.imul(b, 0x85ebca6b);
  b ^= b >>> 13;
  out[2 * row] = a;
  out[2 * row + 1] = b;
}
