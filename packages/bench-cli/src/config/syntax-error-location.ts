// Where a config that failed to load went wrong (`file:line:column` in the one-line error).
import { spawnSync } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";

/** A place in a source file: the file, and its 1-based line and column. */
export interface SourceLocation {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

/** `file:line:column`, as editors and terminals link it. */
export function formatLocation({ file, line, column }: SourceLocation): string {
  return `${file}:${line}:${column}`;
}

/**
 * Where a JavaScript syntax error is. Node's message ("Unexpected token
 * ';'") names neither the file, which may be a module the config imports, nor the line. For
 * CommonJS the stack starts with them; for an ES module Node prints them only when the error is
 * uncaught, so the import is made again in a child process, and read from what it prints. The
 * child runs none of the config's code: a module graph that does not parse runs none, and every ES
 * module it loads starts with `throw` (see {@link NO_RUN_HOOK}), for a config that parses and
 * imports a broken module dynamically from its top-level code, which must not run twice (it may
 * call paid APIs). (jiti's errors for TypeScript configs name the place themselves.) `undefined`
 * when unknown.
 */
export function syntaxErrorLocation(error: unknown, path: string): SourceLocation | undefined {
  if (!(error instanceof SyntaxError)) return undefined;
  const stack = typeof error.stack === "string" ? error.stack : "";
  let text = stack;
  let shift = 0;
  // Only when Node threw it while compiling: a SyntaxError thrown by the config's own code (a
  // JSON.parse of a bad file) has a frame of that code, and its import must not run again.
  if (!ARROW.test(stack) && !/\n\s+at (?!.*\bnode:internal\/)/.test(stack)) {
    const child = spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `import { register } from "node:module";\nregister(${JSON.stringify(`data:text/javascript,${encodeURIComponent(NO_RUN_HOOK)}`)});\nawait import(process.argv[1]);`,
        pathToFileURL(path).href,
      ],
      { encoding: "utf8", timeout: 10_000, stdio: ["ignore", "ignore", "pipe"] },
    );
    text = child.stderr ?? "";
    shift = NO_RUN_PREFIX.length;
  }
  const m = ARROW.exec(text);
  // Node's own frames (the child's `throw` reported as uncaught) are no place in the user's code.
  if (m === null || (m[1] as string).startsWith("node:")) return undefined;
  const file = (m[1] as string).startsWith("file:") ? fileURLToPath(m[1] as string) : m[1];
  const line = Number(m[2]);
  const column = (m[4] as string).length + 1 - (line === 1 ? shift : 0);
  return { file: file as string, line, column: Math.max(1, column) };
}

/**
 * Where the config's code threw: the first frame of the error's stack in
 * the user's own files (not Node's, not a package under node_modules, not jiti's loader), so a
 * throw in a module the config imports names that module. `undefined` when the stack has none.
 */
export function thrownAt(error: unknown): SourceLocation | undefined {
  if (!(error instanceof Error) || typeof error.stack !== "string") return undefined;
  for (const line of error.stack.split("\n").slice(1)) {
    const m = /^\s+at (?:.*? \()?(.+?):(\d+):(\d+)\)?$/.exec(line);
    if (m === null) continue;
    let file = m[1] as string;
    if (file.startsWith("node:") || /[\\/]node_modules[\\/]/.test(file)) continue;
    if (file.startsWith("file:")) {
      try {
        file = fileURLToPath(file);
      } catch {
        continue;
      }
    }
    if (!file.startsWith("/") && !/^[A-Za-z]:[\\/]/.test(file)) continue;
    return { file, line: Number(m[2]), column: Number(m[3]) };
  }
  return undefined;
}

/** Put before the first line of every ES module the child loads: none of their code can run. */
const NO_RUN_PREFIX = "throw 0;";

/**
 * A module loader hook for the child of {@link syntaxErrorLocation}: each ES module's source starts
 * with {@link NO_RUN_PREFIX} on its first line (a `#!` line made a comment), so line numbers stay
 * and only first-line columns move, by the prefix's length.
 */
const NO_RUN_HOOK = `export async function load(url, context, next) {
  const loaded = await next(url, context);
  if (loaded.format !== "module" || loaded.source == null) return loaded;
  let source = typeof loaded.source === "string" ? loaded.source : new TextDecoder().decode(loaded.source);
  if (source.startsWith("#!")) source = "//" + source.slice(2);
  return { ...loaded, source: ${JSON.stringify(NO_RUN_PREFIX)} + source };
}`;

/** Node's report of where code does not parse: `<file>:<line>`, the source line, a caret under the place. */
const ARROW = /^(.+):(\d+)\n(.*)\n( *)\^/m;
