import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bundlePackage } from "./__fixtures__/bundle.js";

/** Runs openCache in a process where better-sqlite3 is the given stand-in module. */
async function openWith(standIn: string): Promise<string> {
  const root = mkdtempSync(join(tmpdir(), "bench-cache-native-"));
  const moduleDir = join(root, "node_modules", "better-sqlite3");
  mkdirSync(moduleDir, { recursive: true });
  writeFileSync(join(moduleDir, "package.json"), '{"name":"better-sqlite3","main":"index.js"}');
  writeFileSync(join(moduleDir, "index.js"), standIn);
  const bundle = join(root, "bench-cache.mjs");
  await bundlePackage(bundle);
  const script = `import(${JSON.stringify(bundle)}).then((m) => m.openCache(${JSON.stringify(join(root, "store"))})).then(() => console.log("opened"), (e) => console.log(e.name + ": " + e.message))`;
  const child = spawnSync(process.execPath, ["-e", script], { encoding: "utf8" });
  return child.stdout.trim();
}

describe("a better-sqlite3 that cannot be loaded", () => {
  it("unbuilt (pnpm 10 skipped its install script): a ConfigurationError with the fix", async () => {
    const out = await openWith(
      'throw new Error("Could not locate the bindings file. Tried:\\n → build/better_sqlite3.node");',
    );
    expect(out).toMatch(
      /^ConfigurationError: @fastrag\/bench-cache cannot load better-sqlite3 \(Could not locate the bindings file\. Tried:\): its native module is missing or was not built: pnpm 10 skips install scripts unless allowed, so add better-sqlite3 to `onlyBuiltDependencies`/,
    );
  });

  it("built for another Node.js: a ConfigurationError saying to rebuild", async () => {
    const out = await openWith(
      'throw new Error("The module was compiled against a different Node.js version using NODE_MODULE_VERSION 127. This version of Node.js requires NODE_MODULE_VERSION 115.");',
    );
    expect(out).toMatch(
      /^ConfigurationError: .*it was built for another Node\.js version: run `npm rebuild better-sqlite3`/,
    );
  });
});
