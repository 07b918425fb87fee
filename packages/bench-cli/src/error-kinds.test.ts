import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// Every `ConfigurationError` the CLI builds says what it is in `kind` (code reacts to it, never to
// the message), so a site without one fails here, as core's type will once `kind` is required.
// `UsageError` and `TargetLockedError` set theirs in their constructors.

const src = fileURLToPath(new URL("./", import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "__fixtures__" ? [] : sourceFiles(path);
    return entry.name.endsWith(".ts") && !/\.test(-d)?\.ts$/.test(entry.name) ? [path] : [];
  });
}

/** Whether the fields argument names a kind: `{ kind: … }`, or a spread of `fieldsOf(error)`. */
function namesKind(fields: ts.Expression | undefined): boolean {
  if (fields === undefined || !ts.isObjectLiteralExpression(fields)) return false;
  return fields.properties.some(
    (p) =>
      (ts.isPropertyAssignment(p) && p.name.getText() === "kind") ||
      (ts.isShorthandPropertyAssignment(p) && p.name.getText() === "kind") ||
      (ts.isSpreadAssignment(p) &&
        ts.isCallExpression(p.expression) &&
        p.expression.expression.getText() === "fieldsOf"),
  );
}

/** `file:line` of every `new ConfigurationError(…)` whose fields name no kind. */
function sitesWithoutKind(): string[] {
  const found: string[] = [];
  for (const file of sourceFiles(src)) {
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
        !namesKind(node.arguments?.[1])
      ) {
        const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
        found.push(`${relative(src, file)}:${line}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

describe("the CLI's ConfigurationErrors", () => {
  it("each name their kind", () => {
    expect(sitesWithoutKind()).toEqual([]);
  });
});
