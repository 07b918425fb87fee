import { BenchmarkResult } from "@fastrag/bench-core";
import { expandPaths } from "../internal/files.js";
import { cliPath, type Io, writeLine } from "../internal/io.js";

/** `fastrag-bench merge`: joins the shards of a run into one result file. */
export async function mergeCommand(
  files: readonly string[],
  options: { out: string },
  io: Io,
): Promise<number> {
  const paths = await expandPaths(files, io.cwd);
  const shards = await Promise.all(paths.map((p) => BenchmarkResult.load(p)));
  const merged = BenchmarkResult.merge(shards);
  await merged.save(cliPath(io, options.out));
  const s = merged.status;
  writeLine(
    io.stderr,
    `merged ${shards.length} shard(s) of "${merged.name}" into ${options.out}: ${merged.samples.length} samples (successful ${s.successful}, incomplete ${s.incomplete}, errored ${s.errored})`,
  );
  return 0;
}
