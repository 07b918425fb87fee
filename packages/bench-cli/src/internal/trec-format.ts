/**
 * A score with 4 decimals exactly as trec_eval prints it (C's `printf("%.4f")`): the nearest
 * 4-decimal number to the double's exact value, and on an exact tie the one with an even last
 * digit. `Number#toFixed` rounds ties up instead, so 1/32 (recall 1 of 32) would print 0.0313
 * where trec_eval prints 0.0312.
 */
export function trecFixed4(value: number): string {
  // A double lies exactly halfway between two 4-decimal numbers only when it is an odd multiple
  // of 1/32 (x = (2n+1)/20000 must have a power-of-two denominator). Multiplying by 32 or by
  // 10,000 is then exact, and so is the rest of this branch.
  const thirtySeconds = value * 32;
  if (
    Number.isInteger(thirtySeconds) &&
    thirtySeconds % 2 !== 0 &&
    Math.abs(thirtySeconds) < 2 ** 40
  ) {
    const below = Math.floor(value * 10_000);
    const even = below % 2 === 0 ? below : below + 1;
    return (even / 10_000).toFixed(4);
  }
  return value.toFixed(4);
}
