// What `eval` scores when no `-m` is given: shared by the command's help (`eval-command.ts`) and
// its action (`eval.ts`), which the build bundles apart (`scripts/bundle-eval.mjs`), so it lives
// in neither: the action importing the spec, which loads the action, made a circle.

/** The measures `eval` prints when no `-m` is given. */
export const DEFAULT_EVAL_METRICS: readonly string[] = [
  "map",
  "mrr",
  "r_precision",
  "ndcg@10",
  "recall@100",
  "precision@10",
];
