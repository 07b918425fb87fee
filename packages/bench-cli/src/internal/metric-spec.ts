import type { Metric } from "@fastrag/bench-core";
import { ConfigurationError } from "@fastrag/bench-core/internal/base";
import {
  HitRate,
  MAP,
  MRR,
  NDCG,
  Precision,
  Recall,
  RPrecision,
} from "@fastrag/bench-metrics/retrieval";

/** trec_eval measure names accepted as aliases of ours (`P_10` → `precision@10`). */
const TREC_ALIASES: readonly [RegExp, string][] = [
  [/^P[_.](\d+)$/, "precision@$1"],
  [/^recall[_.](\d+)$/, "recall@$1"],
  [/^ndcg_cut[_.](\d+)$/, "ndcg@$1"],
  [/^map_cut[_.](\d+)$/, "map@$1"],
  [/^success[_.](\d+)$/, "hit_rate@$1"],
  [/^recip_rank$/, "mrr"],
  [/^Rprec$/, "r_precision"],
];

export const RETRIEVAL_METRIC_NAMES =
  "map, map@k, mrr, mrr@k, ndcg, ndcg@k, recall@k, precision@k, hit_rate@k, r_precision (or trec_eval names: P_10, ndcg_cut_10, recip_rank, Rprec, success_1, map_cut_10; several cutoffs as P.5,10)";

/** Builds a retrieval metric from its result-file name, e.g. `ndcg@10`. */
export function retrievalMetric(spec: string): Metric {
  let name = spec.trim();
  for (const [re, to] of TREC_ALIASES) if (re.test(name)) name = name.replace(re, to);
  const m = /^([a-z_]+)(?:@(\d+))?$/.exec(name);
  const k = m?.[2] === undefined ? undefined : Number(m[2]);
  if (m && (k === undefined || k >= 1)) {
    switch (m[1]) {
      case "map":
        return k === undefined ? new MAP() : new MAP({ k });
      case "mrr":
        return k === undefined ? new MRR() : new MRR({ k });
      case "r_precision":
        if (k === undefined) return new RPrecision();
        break;
      case "ndcg":
        // Uncut, like trec_eval's `ndcg`: the whole ranking, and an ideal of every positive grade.
        return new NDCG(k === undefined ? { k: Number.MAX_SAFE_INTEGER, name: "ndcg" } : { k });
      case "recall":
        if (k !== undefined) return new Recall({ k });
        break;
      case "precision":
        if (k !== undefined) return new Precision({ k });
        break;
      case "hit_rate":
        if (k !== undefined) return new HitRate({ k });
        break;
    }
  }
  throw new ConfigurationError(
    `unknown metric "${spec}"; expected one of ${RETRIEVAL_METRIC_NAMES}`,
    { kind: "invalid-option", option: "--metric" },
  );
}
