// `pnpm bench [name...]`: runs the benchmarks in this folder one after another, each in its own
// process (so peak RSS is per benchmark), after `pnpm build`. Each prints its numbers and ratios.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
const wanted = process.argv.slice(2);
const all = readdirSync(here)
  .filter((f) => f.endsWith(".mjs") && f !== "run.mjs" && !f.endsWith("-fixture.mjs"))
  .map((f) => f.replace(/\.mjs$/, ""))
  .sort();
let failed = 0;
for (const name of wanted.length > 0 ? wanted : all) {
  console.log(`\n## bench/${name}.mjs`);
  const r = spawnSync(process.execPath, ["--expose-gc", `${here}${name}.mjs`], {
    stdio: "inherit",
  });
  if (r.status !== 0) failed++;
}
process.exitCode = failed === 0 ? 0 : 1;
