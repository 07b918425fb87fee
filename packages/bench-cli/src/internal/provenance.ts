// Where a run came from: the config file's hash, the git commit it was run at, and each target's
// declared params. `run` records them in every result (core's `Provenance`).
import { createHash } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { ConfigurationError, type Provenance } from "@fastrag/bench-core";

/**
 * `sha256:<hex>` of the config file's bytes. It changes with any edit of the file (a comment
 * included), not with a module the config imports: a pipeline defined elsewhere says its version
 * through its `params` or `cacheKey`.
 */
export async function configHash(path: string): Promise<string> {
  return `sha256:${createHash("sha256")
    .update(await readFile(path))
    .digest("hex")}`;
}

const HASH = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/**
 * The commit checked out in the git work tree that holds `dir`, read from the repository's files
 * (`.git` a directory, or a file `gitdir: …` in a linked worktree or submodule; `HEAD`, loose refs,
 * `packed-refs`, a worktree's `commondir`): no `git` binary is needed or run. `undefined` when
 * `dir` is in no work tree, the branch has no commit yet, or anything cannot be read: provenance is
 * recorded when known and its absence is never an error. A detached HEAD gives its commit.
 */
export async function gitCommit(dir: string): Promise<string | undefined> {
  try {
    const gitDir = await findGitDir(resolve(dir));
    if (gitDir === undefined) return undefined;
    const common = await readText(join(gitDir, "commondir")).then(
      (c) => (isAbsolute(c) ? c : resolve(gitDir, c)),
      () => gitDir,
    );
    let head = await readText(join(gitDir, "HEAD"));
    // A symbolic ref may point at another symbolic ref; a few hops at most.
    for (let hop = 0; hop < 5; hop++) {
      if (HASH.test(head)) return head;
      const m = /^ref:\s*(\S+)$/.exec(head);
      if (m === null) return undefined;
      const ref = m[1] as string;
      if (ref.split("/").includes("..")) return undefined;
      const loose =
        (await readText(join(gitDir, ref)).catch(() => undefined)) ??
        (await readText(join(common, ref)).catch(() => undefined));
      if (loose !== undefined) {
        head = loose;
        continue;
      }
      return packedRef(await readText(join(common, "packed-refs")).catch(() => ""), ref);
    }
  } catch {
    // Unreadable: unknown, not an error.
  }
  return undefined;
}

async function readText(path: string): Promise<string> {
  return (await readFile(path, "utf8")).trim();
}

/** The `.git` directory of the work tree holding `start`, found by walking up. */
async function findGitDir(start: string): Promise<string | undefined> {
  let dir = start;
  for (;;) {
    const candidate = join(dir, ".git");
    const s = await stat(candidate).catch(() => undefined);
    if (s?.isDirectory()) return candidate;
    if (s?.isFile()) {
      const m = /^gitdir:\s*(.+)$/m.exec(await readFile(candidate, "utf8"));
      return m === null ? undefined : resolve(dir, (m[1] as string).trim());
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** A ref's commit in `packed-refs` (`<hash> <ref>` lines; `^<hash>` lines peel tags). */
function packedRef(text: string, ref: string): string | undefined {
  for (const line of text.split("\n")) {
    const [hash, name] = line.trim().split(/\s+/);
    if (name === ref && hash !== undefined && HASH.test(hash)) return hash;
  }
  return undefined;
}

/**
 * A target's `params` from the config (`targets: { bm25: { retrieve, params: { k1: 1.2 } } }`),
 * checked: a plain object of JSON values (strings, finite numbers, booleans, null, arrays and
 * plain objects of them), so that the result file keeps them exactly. `undefined` when the target
 * declares none.
 *
 * @throws {ConfigurationError} (kind `invalid-option`, option `targets.<name>.params`) naming the
 * config, the target and the path to the first value that is not JSON.
 */
export function targetParams(
  configPath: string,
  name: string,
  target: unknown,
): Readonly<Record<string, unknown>> | undefined {
  if (typeof target !== "object" || target === null || !("params" in target)) return undefined;
  const params = (target as { params?: unknown }).params;
  if (params === undefined) return undefined;
  const option = `targets.${name}.params`;
  if (!isPlainObject(params)) {
    throw new ConfigurationError(
      `${configPath}: target ${JSON.stringify(name)}: params must be an object of JSON values, e.g. params: { topK: 5, model: "gpt-4o" }, found ${kindOf(params)}`,
      { kind: "invalid-option", option, path: configPath },
    );
  }
  const bad = firstNonJson(params, "params", new Set());
  if (bad !== undefined) {
    throw new ConfigurationError(
      `${configPath}: target ${JSON.stringify(name)}: ${bad.at} is ${bad.found}; params hold JSON values only (strings, finite numbers, booleans, null, arrays and plain objects), so that the result keeps them as they are`,
      { kind: "invalid-option", option, field: bad.at, path: configPath },
    );
  }
  return params;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number") return String(value);
  if (typeof value === "object") {
    const ctor = (Object.getPrototypeOf(value) as { constructor?: { name?: string } } | null)
      ?.constructor?.name;
    return ctor ? `a ${ctor}` : "an object";
  }
  return `a ${typeof value}`;
}

/** Where a value that JSON cannot hold as is lies in `value`, and what it is. */
function firstNonJson(
  value: unknown,
  at: string,
  seen: Set<object>,
): { at: string; found: string } | undefined {
  if (value === null || typeof value === "string" || typeof value === "boolean") return undefined;
  if (typeof value === "number") {
    return Number.isFinite(value) ? undefined : { at, found: String(value) };
  }
  if (Array.isArray(value)) {
    if (seen.has(value)) return { at, found: "a circular reference" };
    seen.add(value);
    for (let i = 0; i < value.length; i++) {
      const bad = firstNonJson(value[i], `${at}[${i}]`, seen);
      if (bad !== undefined) return bad;
    }
    seen.delete(value);
    return undefined;
  }
  if (isPlainObject(value)) {
    if (seen.has(value)) return { at, found: "a circular reference" };
    seen.add(value);
    for (const key of Object.keys(value)) {
      const path = /^[A-Za-z_$][\w$]*$/.test(key)
        ? `${at}.${key}`
        : `${at}[${JSON.stringify(key)}]`;
      const bad = firstNonJson(value[key], path, seen);
      if (bad !== undefined) return bad;
    }
    seen.delete(value);
    return undefined;
  }
  return { at, found: kindOf(value) };
}

/** The provenance of one target's run: the config's hash, the commit, the target's params. */
export function provenanceOf(
  hash: string,
  commit: string | undefined,
  params: Readonly<Record<string, unknown>> | undefined,
): Provenance {
  return {
    configHash: hash,
    ...(commit !== undefined ? { gitCommit: commit } : {}),
    ...(params !== undefined ? { params } : {}),
  };
}
