import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import ts from "typescript";

/** The fence info word that leaves a block out of the check: ```` ```ts skip-check ````. */
export const SKIP_MARKER = "skip-check";

/** One ```` ```ts ```` block of a markdown file. */
export interface Snippet {
  /** The markdown file, as given to {@link extractSnippets} (a path relative to the repo root). */
  readonly readme: string;
  /** 1-based line of the opening fence. */
  readonly fenceLine: number;
  /** The block's code, with the fence's own indentation removed from each line. */
  readonly code: string;
  /** Whether the fence carries {@link SKIP_MARKER}. */
  readonly skipped: boolean;
}

const OPENING_FENCE = /^( {0,3})(`{3,}|~{3,})(.*)$/;
const TS_LANGUAGES = new Set(["ts", "typescript"]);

/**
 * The TypeScript blocks of a markdown text (info string `ts` or `typescript`), in order. Fences
 * follow CommonMark: up to 3 spaces of indentation (a fence inside a list item), backticks or
 * tildes, closed by a fence of the same character at least as long.
 */
export function extractSnippets(markdown: string, readme: string): Snippet[] {
  const lines = markdown.split(/\r?\n/);
  const snippets: Snippet[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = OPENING_FENCE.exec(lines[i]!);
    if (open === null) continue;
    const [, indent = "", fence = "", info = ""] = open;
    if (fence[0] === "`" && info.includes("`")) continue; // inline code, not a fence
    const closing = new RegExp(`^ {0,3}${fence[0]}{${fence.length},}\\s*$`);
    let end = i + 1;
    while (end < lines.length && !closing.test(lines[end]!)) end++;
    const words = info.trim().split(/\s+/);
    if (TS_LANGUAGES.has((words[0] ?? "").toLowerCase())) {
      const body = lines.slice(i + 1, end).map((line) => stripIndent(line, indent.length));
      snippets.push({
        readme,
        fenceLine: i + 1,
        code: body.join("\n"),
        skipped: words.includes(SKIP_MARKER),
      });
    }
    i = end; // a fence left open runs to the end of the file, as in CommonMark
  }
  return snippets;
}

function stripIndent(line: string, width: number): string {
  let n = 0;
  while (n < width && line[n] === " ") n++;
  return line.slice(n);
}

/** A checked snippet and its compiler errors, each `README.md:LINE:COL TS1234: message`. */
export interface SnippetReport {
  readonly snippet: Snippet;
  /** The module the snippet was written to. */
  readonly file: string;
  readonly errors: string[];
}

/** The result of {@link checkSnippets}. */
export interface CheckResult {
  readonly reports: SnippetReport[];
  /** Errors outside any snippet: in the prelude, the compiler options, a package's types. */
  readonly otherErrors: string[];
}

/** Where {@link checkSnippets} reads and writes. */
export interface CheckPaths {
  /** The repository root: `tsconfig.base.json` is read from it and messages name paths from it. */
  readonly repoRoot: string;
  /** The prelude: `globals.ts`, `context.ts` and any module a snippet imports by a relative path. */
  readonly preludeDir: string;
  /**
   * Where the snippets are written, one module each, beside a copy of the prelude: a directory
   * inside a package that depends on the packages, so `@fastrag/...` imports resolve as in a
   * user's project. Emptied first.
   */
  readonly outDir: string;
}

interface ContextExport {
  readonly name: string;
  readonly typeOnly: boolean;
}

/** The names `context.ts` re-exports, read from its syntax. */
function contextExports(source: string): ContextExport[] {
  const file = ts.createSourceFile("context.ts", source, ts.ScriptTarget.Latest);
  const names: ContextExport[] = [];
  for (const statement of file.statements) {
    if (!ts.isExportDeclaration(statement)) continue;
    const clause = statement.exportClause;
    if (clause === undefined || !ts.isNamedExports(clause)) continue;
    for (const element of clause.elements) {
      names.push({ name: element.name.text, typeOnly: statement.isTypeOnly || element.isTypeOnly });
    }
  }
  return names;
}

function hasImports(code: string): boolean {
  const file = ts.createSourceFile("snippet.ts", code, ts.ScriptTarget.Latest);
  return file.statements.some((s) => ts.isImportDeclaration(s) || ts.isImportEqualsDeclaration(s));
}

function fileNameFor(snippet: Snippet): string {
  const slug = snippet.readme.replace(/\.md$/i, "").replace(/[^A-Za-z0-9.-]+/g, "_");
  return `${slug}.L${snippet.fenceLine}.ts`;
}

/**
 * Type-checks snippets with the TypeScript compiler API, as one program: each snippet is written
 * as its own module (`export {}` appended, so top-level `await` works and its names stay its own)
 * and compiled with `tsconfig.base.json`'s options against the packages' built types.
 *
 * A snippet with no import declaration is a fragment of the README's running example: it is given
 * an import of each `context.ts` export it mentions. Skipped snippets are not written.
 */
export function checkSnippets(snippets: readonly Snippet[], paths: CheckPaths): CheckResult {
  const { repoRoot, preludeDir, outDir } = paths;
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const preludeFiles = readdirSync(preludeDir).filter((f) => /\.(d\.)?ts$/.test(f));
  for (const f of preludeFiles) copyFileSync(join(preludeDir, f), join(outDir, f));
  const context = contextExports(readFileSync(join(preludeDir, "context.ts"), "utf8"));

  const written = new Map<string, { snippet: Snippet; headerLines: number }>();
  for (const snippet of snippets) {
    if (snippet.skipped) continue;
    const file = join(outDir, fileNameFor(snippet));
    if (written.has(file)) throw new Error(`two snippets would be written to ${file}`);
    let header = "";
    if (!hasImports(snippet.code)) {
      const used = context.filter(({ name }) => new RegExp(`\\b${name}\\b`).test(snippet.code));
      if (used.length > 0) {
        const names = used.map(({ name, typeOnly }) => (typeOnly ? `type ${name}` : name));
        header = `import { ${names.join(", ")} } from "./context.js";\n`;
      }
    }
    writeFileSync(file, `${header}${snippet.code}\nexport {};\n`);
    written.set(file, { snippet, headerLines: header === "" ? 0 : 1 });
  }

  const options = compilerOptions(repoRoot);
  const roots = [...preludeFiles.map((f) => join(outDir, f)), ...written.keys()];
  const program = ts.createProgram({ rootNames: roots, options });
  const reports = new Map<string, SnippetReport>();
  for (const [file, { snippet }] of written) reports.set(file, { snippet, file, errors: [] });
  const otherErrors: string[] = [];

  for (const d of ts.getPreEmitDiagnostics(program)) {
    const message = `TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
    const fileName = d.file === undefined ? undefined : ts.sys.resolvePath(d.file.fileName);
    const entry = fileName === undefined ? undefined : written.get(fileName);
    if (d.file === undefined || d.start === undefined || fileName === undefined) {
      otherErrors.push(message);
    } else if (entry === undefined) {
      const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
      // A prelude file is named by its source in `preludeDir`, not by the copy that was compiled.
      const source =
        dirname(fileName) === ts.sys.resolvePath(outDir) &&
        preludeFiles.includes(basename(fileName))
          ? join(preludeDir, basename(fileName))
          : fileName;
      otherErrors.push(`${relative(repoRoot, source)}:${line + 1}:${character + 1} ${message}`);
    } else {
      const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
      const codeLine = line - entry.headerLines;
      const where =
        codeLine < 0
          ? `${entry.snippet.readme}:${entry.snippet.fenceLine} (the import given to a fragment)`
          : `${entry.snippet.readme}:${entry.snippet.fenceLine + 1 + codeLine}:${character + 1}`;
      const text = codeLine < 0 ? "" : (entry.snippet.code.split("\n")[codeLine] ?? "").trim();
      reports.get(fileName)!.errors.push(`${where} ${message}${text ? `\n    ${text}` : ""}`);
    }
  }
  return { reports: [...reports.values()], otherErrors };
}

/**
 * The repository's own strict settings (`tsconfig.base.json`: strict, noUncheckedIndexedAccess,
 * verbatimModuleSyntax, NodeNext), minus the emit-only ones a snippet cannot meet (isolated
 * declarations of `export default defineConfig(...)`).
 */
function compilerOptions(repoRoot: string): ts.CompilerOptions {
  const path = join(repoRoot, "tsconfig.base.json");
  const read = ts.readConfigFile(path, ts.sys.readFile);
  if (read.error !== undefined) {
    throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, "\n"));
  }
  const converted = ts.convertCompilerOptionsFromJson(read.config.compilerOptions, repoRoot);
  if (converted.errors.length > 0) {
    const messages = converted.errors.map((e) =>
      ts.flattenDiagnosticMessageText(e.messageText, " "),
    );
    throw new Error(`${path}: ${messages.join("; ")}`);
  }
  return {
    ...converted.options,
    noEmit: true,
    declaration: false,
    declarationMap: false,
    isolatedDeclarations: false,
    sourceMap: false,
  };
}
