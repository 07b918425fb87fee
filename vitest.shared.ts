import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// The one place where tests resolve sibling packages from source, so `pnpm test` needs no build.
const pkg = (p: string) => fileURLToPath(new URL(`./packages/${p}`, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^@fastrag\/bench-cache$/, replacement: pkg("bench-cache/src/index.ts") },
      { find: /^@fastrag\/bench-core$/, replacement: pkg("bench-core/src/index.ts") },
      {
        find: /^@fastrag\/bench-core\/internal\/base$/,
        replacement: pkg("bench-core/src/internal/base.ts"),
      },
      {
        find: /^@fastrag\/bench-core\/(internal|testing)$/,
        replacement: pkg("bench-core/src/$1.ts"),
      },
      { find: /^@fastrag\/bench-datasets$/, replacement: pkg("bench-datasets/src/index.ts") },
      {
        find: /^@fastrag\/bench-datasets\/internal$/,
        replacement: pkg("bench-datasets/src/internal.ts"),
      },
      { find: /^@fastrag\/bench-compare$/, replacement: pkg("bench-compare/src/index.ts") },
      { find: /^@fastrag\/bench-ai$/, replacement: pkg("bench-ai/src/index.ts") },
      { find: /^@fastrag\/bench-langchain$/, replacement: pkg("bench-langchain/src/index.ts") },
      { find: /^@fastrag\/bench-metrics$/, replacement: pkg("bench-metrics/src/index.ts") },
      {
        find: /^@fastrag\/bench-metrics\/(retrieval|generation|operational|kernels|kit)$/,
        replacement: pkg("bench-metrics/src/$1.ts"),
      },
    ],
  },
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // Tests that spawn the CLI (several processes each) take 10 s on a loaded 2-core machine and
    // could take 30 s in a spike; a hung test still fails, only later.
    testTimeout: 120_000,
    // A TMPDIR of the run's own, removed at its end: tests' temporary files never pile up.
    globalSetup: [fileURLToPath(new URL("./vitest.tmpdir.ts", import.meta.url))],
    typecheck: { enabled: true, include: ["src/**/*.test-d.ts"], tsconfig: "./tsconfig.json" },
  },
});
