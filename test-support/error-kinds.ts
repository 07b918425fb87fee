// The check that every `ConfigurationError` a package builds says what it is in `kind` (code
// reacts to it, never to the message): a site without one fails its package's test, as core's
// type will once `kind` is required. Read from the sources with the TypeScript parser.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

/** The `.ts` files under `dir`, tests and `__fixtures__` left out. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "__fixtures__" ? [] : sourceFiles(path);
    return entry.name.endsWith(".ts") && !/\.test(-d)?\.ts$/.test(entry.name) ? [path] : [];
  });
}

/**
 * Whether the fields argument is an object literal that names a `kind`, or spreads a call of one
 * of `spreads` (functions that return fields with a kind, such as the CLI's `fieldsOf(error)`).
 */
function namesKind(fields: ts.Expression | undefined, spreads: readonly string[]): boolean {
  if (fields === undefined || !ts.isObjectLiteralExpression(fields)) return false;
  return fields.properties.some(
    (p) =>
      ((ts.isPropertyAssignment(p) || ts.isShorthandPropertyAssignment(p)) &&
        p.name.getText() === "kind") ||
      (ts.isSpreadAssignment(p) &&
        ts.isCallExpression(p.expression) &&
        spreads.includes(p.expression.expression.getText())),
  );
}

/** `file:line` (relative to `dir`) of every `new ConfigurationError(…)` whose fields name no kind. */
export function sitesWithoutKind(
  dir: string,
  options: { readonly spreads?: readonly string[] } = {},
): string[] {
  const spreads = options.spreads ?? [];
  const found: string[] = [];
  for (const file of sourceFiles(dir)) {
    const source = ts.createSourceFile(
      file,
      readFileSync(file, "utf8"),
      ts.ScriptTarget.Latest,
      true,
    );
    const visit = (node: ts.Node): void => {
      if (
        ts.isNewExpression(node) &&
        node.expression.getText() === "ConfigurationError" &&
        !namesKind(node.arguments?.[1], spreads)
      ) {
        const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
        found.push(`${relative(dir, file)}:${line}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}
