/**
 * The flat retrieval kernels, importable alone: `@fastrag/bench-metrics/kernels`.
 *
 * These are the functions the retrieval metric classes call once a sample's ranking has been
 * joined with its judgments: a 0/1 relevant flag per rank (`relevant`), `n` ranks, `r` relevant
 * ids (R), a cutoff `k` (`Infinity` for none), and for nDCG a gain per rank and the ideal
 * ranking's positive gains sorted descending. A caller that holds judgments in its own columns
 * (`fastrag-bench eval` reads TREC files into typed arrays) calls them directly, and gets the
 * metric classes' numbers to the last bit, since the classes compute nothing else.
 *
 * Each kernel expects `r ≥ 1` (a sample without relevant ids is `null` in the classes, and is not
 * scored), ranks without duplicates, and `relevant`/`gains` holding at least `min(n, k)` entries.
 *
 * @example
 * ```ts
 * import { averagePrecisionOfFlags } from "@fastrag/bench-metrics/kernels";
 * // Ranks 1 and 3 relevant, of R = 2: (1/1 + 2/3) / 2.
 * averagePrecisionOfFlags(Uint8Array.of(1, 0, 1), 3, 2, Number.POSITIVE_INFINITY); // 0.8333…
 * ```
 *
 * @module
 */
export {
  averagePrecisionOfFlags,
  hitRateOfFlags,
  hitsOfFlags,
  ndcgOfGains,
  precisionOfFlags,
  recallOfFlags,
  reciprocalRankOfFlags,
  rPrecisionOfFlags,
} from "./internal/kernels.js";
