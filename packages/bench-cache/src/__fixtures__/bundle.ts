import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

/**
 * Bundles this package's source with core's into one ES module at `outfile`, better-sqlite3 left
 * external, so child processes can run the code under test without a build. better-sqlite3 is
 * then resolved from `outfile`'s directory upwards.
 */
export async function bundlePackage(outfile: string): Promise<void> {
  await build({
    entryPoints: [here("../index.ts")],
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    outfile,
    external: ["better-sqlite3"],
    alias: { "@fastrag/bench-core": here("../../../bench-core/src/index.ts") },
    logLevel: "silent",
  });
}
