/** A scale from data values to pixels, with the ticks drawn on its axis. */
export interface Scale {
  readonly kind: "linear" | "log";
  readonly domain: readonly [number, number];
  readonly range: readonly [number, number];
  readonly ticks: readonly number[];
  map(value: number): number;
}

/**
 * A linear scale over `[lo, hi]` widened to "nice" round bounds (1, 2, 2.5 or 5 × 10^k steps),
 * with about `count` ticks. Scores in [0, 1] stay within [0, 1]. A flat domain (every value
 * equal) is widened around the value so the marks do not sit on an axis end.
 */
export function linearScale(
  lo: number,
  hi: number,
  range: readonly [number, number],
  count = 5,
): Scale {
  if (!(Number.isFinite(lo) && Number.isFinite(hi))) {
    lo = 0;
    hi = 1;
  }
  if (lo > hi) [lo, hi] = [hi, lo];
  if (lo === hi) {
    const pad = lo === 0 ? 1 : Math.abs(lo) * 0.1;
    lo -= pad;
    hi += pad;
  }
  const unit = lo >= 0 && hi <= 1;
  const step = niceStep((hi - lo) / count);
  let nlo = round(Math.floor(lo / step) * step);
  let nhi = round(Math.ceil(hi / step) * step);
  if (unit) {
    nlo = Math.max(0, nlo);
    nhi = Math.min(1, nhi);
  }
  const ticks: number[] = [];
  const n = Math.round((nhi - nlo) / step);
  for (let i = 0; i <= n; i++) ticks.push(round(nlo + i * step));
  const [r0, r1] = range;
  const span = nhi - nlo;
  return {
    kind: "linear",
    domain: [nlo, nhi],
    range,
    ticks,
    map: (v) => r0 + ((v - nlo) / span) * (r1 - r0),
  };
}

/**
 * A base-10 log scale over `[lo, hi]` (both > 0), widened to powers of ten, ticks at 1, 2 and 5
 * × 10^k when it spans at most two decades and at powers of ten beyond.
 */
export function logScale(lo: number, hi: number, range: readonly [number, number]): Scale {
  const a = Math.floor(Math.log10(lo));
  let b = Math.ceil(Math.log10(hi));
  if (b === a) b = a + 1;
  const ticks: number[] = [];
  const fine = b - a <= 2;
  for (let e = a; e <= b; e++) {
    const base = 10 ** e;
    ticks.push(round(base));
    if (fine && e < b) {
      ticks.push(round(2 * base));
      ticks.push(round(5 * base));
    }
  }
  const l0 = a;
  const l1 = b;
  const [r0, r1] = range;
  return {
    kind: "log",
    domain: [10 ** a, 10 ** b],
    range,
    ticks,
    map: (v) => r0 + ((Math.log10(Math.max(v, 10 ** a)) - l0) / (l1 - l0)) * (r1 - r0),
  };
}

/** The nice step (1, 2, 2.5 or 5 × 10^k) closest above `raw`. */
export function niceStep(raw: number): number {
  if (!(raw > 0) || !Number.isFinite(raw)) return 1;
  const power = 10 ** Math.floor(Math.log10(raw));
  const f = raw / power;
  const nice = f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10;
  return nice * power;
}

/** Removes float noise such as 0.30000000000000004 from tick values. */
function round(v: number): number {
  return Number.parseFloat(v.toPrecision(12));
}

/** Tick text: up to 4 significant decimals, no trailing zeros, thousands without separators. */
export function tickLabel(v: number): string {
  if (v === 0) return "0";
  const abs = Math.abs(v);
  if (abs >= 1000) return String(Math.round(v));
  return String(Number.parseFloat(v.toPrecision(4)));
}
