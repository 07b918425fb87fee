import { type Document, parseAllDocuments, Scalar, visit, type YAMLError } from "yaml";
import type { ColumnMapping } from "../column-mapping.js";
import { readTextFile } from "./files.js";
import { lineColumnAt } from "./json-text.js";
import { samplesFromDocument } from "./load-json.js";
import { inputError, messageOf } from "./problems.js";
import type { LoadedSamples } from "./sample-builder.js";

/**
 * Reads a `.yaml`/`.yml` dataset: a list of records, or `{samples: [...]}`. Parsed with the
 * `yaml` package's YAML 1.2 core schema: tags never execute anything (an unknown tag such as
 * `!!js/function` leaves the plain string and a warning), duplicate keys are errors, and alias
 * expansion is capped, so a "billion laughs" file is an error rather than a hang.
 */
export async function loadYamlDataset(
  path: string,
  mapping: ColumnMapping | undefined,
): Promise<LoadedSamples> {
  const text = await readTextFile(path);
  let document: unknown;
  const warnings: string[] = [];
  let parsed: Document | undefined;
  let count = 0;
  let secondAt = 0;
  try {
    const all: Document[] = parseAllDocuments(text, {
      uniqueKeys: true,
      prettyErrors: true,
      logLevel: "silent",
    });
    count = all.length;
    secondAt = all[1]?.range?.[0] ?? 0;
    parsed = all[0];
    if (parsed !== undefined && count === 1) {
      const error = parsed.errors[0];
      if (error !== undefined) throw error;
      for (const warning of parsed.warnings)
        warnings.push(`${where(path, warning)}: ${firstLine(warning.message)}`);
      keepIntegerText(parsed);
      document = parsed.toJS({ maxAliasCount: 1000 });
    }
  } catch (error) {
    let at = where(path, error);
    // Too many alias expansions (a "billion laughs" file) carries no position: name the first
    // alias, where the expansion starts.
    if (at === path && parsed !== undefined) at = firstAlias(path, text, parsed) ?? path;
    throw inputError(at, `invalid YAML: ${firstLine(messageOf(error))}`, error);
  }
  // A stream of several documents (`---` between them): reading the first alone would drop the
  // others without a word.
  if (count > 1) {
    const { line } = lineColumnAt(text, secondAt);
    throw inputError(
      `${path}: line ${line}`,
      `a second YAML document starts here (the file holds ${count}); a dataset is one document, a list of records or {samples: [...]}: join the documents' records into one list`,
    );
  }
  const loaded = samplesFromDocument(document ?? null, mapping, path);
  loaded.warnings.unshift(...warnings);
  return loaded;
}

/**
 * Rewrites, in place, the plain (unquoted, untagged) decimal integers that a JavaScript number
 * would not give back as written:
 * - with a leading zero (`007`, `-012`, `00`): the string as written. Such values are ids and
 *   codes (zip codes, topic numbers "051"), whose zeros matter for pairing with qrels and runs;
 *   as a number, `007` would become the id "7" and silently match nothing.
 * - beyond 2^53 (`12345678901234567890`): a BigInt, so that an id keeps every digit (a number
 *   would round it to …000). Metadata holds it as a number when it fits, else as its digits.
 * Other numbers (`1.50`, `1e3`, `0x1F`, `.inf`) are YAML's numbers as usual; an explicit tag
 * (`!!int 007`) or quotes are obeyed as written.
 */
function keepIntegerText(document: Document): void {
  visit(document, {
    Scalar(_, node) {
      if (typeof node.value !== "number" || node.type !== Scalar.PLAIN || node.tag !== undefined)
        return;
      const text = node.source;
      if (typeof text !== "string" || !/^[-+]?[0-9]+$/.test(text)) return;
      if (/^[-+]?0[0-9]/.test(text)) node.value = text;
      else if (!Number.isSafeInteger(node.value)) node.value = BigInt(text);
    },
  });
}

function where(path: string, error: unknown): string {
  const position = (error as Partial<YAMLError> | null)?.linePos?.[0];
  return position === undefined ? path : `${path}: line ${position.line}, column ${position.col}`;
}

function firstAlias(path: string, text: string, parsed: Document): string | undefined {
  let offset: number | undefined;
  visit(parsed, {
    Alias(_, node) {
      offset = node.range?.[0];
      return visit.BREAK;
    },
  });
  if (offset === undefined) return undefined;
  const { line, column } = lineColumnAt(text, offset);
  return `${path}: line ${line}, column ${column} (the first alias)`;
}

function firstLine(message: string): string {
  const newline = message.indexOf("\n");
  return newline === -1 ? message : message.slice(0, newline);
}
