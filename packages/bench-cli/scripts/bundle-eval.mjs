// Builds dist/commands/eval-bundle.js: `fastrag-bench eval` with the modules it reads and scores
// with (its readers, the retrieval metrics and their kernels, core's errors and summaries) in one
// file, because loading them one by one cost eval much of its time beside the parse itself (the
// readings are in docs/decisions/eval-reading.md). Run by `build`, after tsc.
//
// What the rest of the CLI also loads stays shared (commander, eval's default measures, io and
// printable), and so does the record path (`--save`, or a metric without a kernel here), which
// loads the packages as any command does. The bundle's copies of core's error classes are told
// apart from no other copy: errors are recognized by their brand (`isInstance`), not `instanceof`.
import { build } from "esbuild";

const shared = [
  "commander",
  "./eval-defaults.js",
  "../internal/io.js",
  "../internal/printable.js",
  "../internal/eval-records.js",
];

await build({
  entryPoints: [new URL("../dist/commands/eval.js", import.meta.url).pathname],
  outfile: new URL("../dist/commands/eval-bundle.js", import.meta.url).pathname,
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external: shared,
  sourcemap: "linked",
  logLevel: "warning",
  legalComments: "none",
});
