import { type CommandSpec, collect } from "./command-spec.js";
import { DEFAULT_EVAL_METRICS } from "./eval-defaults.js";

/** `fastrag-bench eval`: its options and help; the action loads `./eval.js`. */
export const evalCommandSpec: CommandSpec = {
  name: "eval",
  declare: (command, { io, setExitCode }) => {
    command
      .description("evaluate a TREC run file against qrels, like trec_eval, with fastrag's metrics")
      .requiredOption("--qrels <file>", "TREC qrels: qid iter docno rel (gzip too)", collect)
      .requiredOption("--run <file>", "TREC run: qid Q0 docno rank score tag (gzip too)", collect)
      .option(
        "--save <file.json>",
        "also write the evaluation as a result file (per query: ranking, relevant ids, scores) for compare",
      )
      .option(
        "-m, --metric <metric>",
        `a measure (repeatable; P.5,10 gives several cutoffs); default: ${DEFAULT_EVAL_METRICS.join(", ")}`,
        collect,
      )
      .option("-q, --per-query", "also print one line per query (like trec_eval -q)")
      .option(
        "-l, --relevance-level <n>",
        "minimum grade that counts as relevant for binary measures (like trec_eval -l)",
      )
      .option("--json", "machine-readable output")
      .addHelpText(
        "after",
        "\nOutput: num_q, num_ret, num_rel, num_rel_ret (as trec_eval), then metric<TAB>query|all<TAB>value, 4 decimals. A qrels query missing from the run scores 0 (as trec_eval -c);\na query with no relevant document is left out of the average (trec_eval counts it as 0), and a note says so.",
      )
      .action(async (opts) => {
        setExitCode(await (await loadEvalCommand())(opts, io));
      });
  },
};

/**
 * `evalCommand`, from the one-file build of eval and what it reads and scores with
 * (`dist/commands/eval-bundle.js`, written by `scripts/bundle-eval.mjs`): eval's start is most of
 * its distance to the parse floor (docs/decisions/eval-reading.md). Where that file does not
 * exist, the sources run (under the test runner): then `eval.js`.
 */
async function loadEvalCommand(): Promise<typeof import("./eval.js").evalCommand> {
  try {
    // A variable specifier: the bundle has no source of its own for the compiler to resolve.
    const bundle: string = "./eval-bundle.js";
    return ((await import(bundle)) as typeof import("./eval.js")).evalCommand;
  } catch (error) {
    // Built, the bundle must load: a missing or broken one is an error, never a quiet fallback.
    // From the sources there is no bundle beside this file, so a module not found is the bundle.
    const fromSources = !import.meta.url.endsWith(".js");
    if (!fromSources || (error as { code?: unknown } | null)?.code !== "ERR_MODULE_NOT_FOUND") {
      throw error;
    }
    return (await import("./eval.js")).evalCommand;
  }
}
