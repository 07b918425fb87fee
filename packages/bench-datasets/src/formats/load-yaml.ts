import { ConfigurationError } from "@fastrag/bench-core";
import {
  type Document,
  isAlias,
  isCollection,
  isNode,
  isPair,
  parseAllDocuments,
  Scalar,
  visit,
  type YAMLError,
} from "yaml";
import { readTextFile } from "../io/files.js";
import { WRITE_AS_JSONL } from "../io/text-limit.js";
import type { ColumnMapping } from "../records/column-mapping.js";
import { inputError, messageOf, type Place } from "../records/problems.js";
import type { LoadedSamples } from "../records/sample-builder.js";
import { lineColumnAt } from "./json-text.js";
import { samplesFromDocument } from "./load-json.js";

/**
 * Reads a `.yaml`/`.yml` dataset: a list of records, or `{samples: [...]}`. Parsed with the
 * `yaml` package's YAML 1.2 core schema: tags never execute anything (an unknown tag such as
 * `!!js/function` leaves the plain string and a warning), duplicate keys are errors, `<<` merge
 * keys merge (as PyYAML's `safe_load` reads them), and alias expansion is capped by the size it
 * expands to (see {@link expectAliases}), so a "billion laughs" file is an error rather than a hang.
 */
export async function loadYamlDataset(
  path: string,
  mapping: ColumnMapping | undefined,
): Promise<LoadedSamples> {
  const text = await readTextFile(path, WRITE_AS_JSONL);
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
      // `<<: *defaults`, as hand-written YAML shares keys between records: PyYAML's safe_load
      // (the Python package's reader) merges them, and read as a plain key they would end up in
      // metadata while the record silently lacked them.
      merge: true,
    });
    count = all.length;
    secondAt = all[1]?.range?.[0] ?? 0;
    parsed = all[0];
    if (parsed !== undefined && count === 1) {
      const error = parsed.errors[0];
      if (error !== undefined) throw error;
      for (const warning of parsed.warnings)
        warnings.push(`${where(path, warning).text}: ${firstLine(warning.message)}`);
      keepIntegerText(parsed);
      expectAliases(parsed, path, text);
      // Bounded by expectAliases; yaml's own limit counts alias uses, which refuses the files
      // PyYAML writes when more than 1000 records share one list or dict (`*id001`).
      document = parsed.toJS({ maxAliasCount: -1 });
    }
  } catch (error) {
    if (ConfigurationError.isInstance(error)) throw error;
    let at = where(path, error);
    // Too many alias expansions (a "billion laughs" file) carries no position: name the first
    // alias, where the expansion starts.
    if (at.line === undefined && parsed !== undefined) at = firstAlias(path, text, parsed) ?? at;
    throw inputError(at, `invalid YAML: ${firstLine(messageOf(error))}`, { cause: error });
  }
  // A stream of several documents (`---` between them): reading the first alone would drop the
  // others without a word.
  if (count > 1) {
    const { line } = lineColumnAt(text, secondAt);
    throw inputError(
      { text: `${path}: line ${line}`, path, line },
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

/**
 * How much aliases may enlarge a document: to at most this many times the values it spells out,
 * plus {@link ALIAS_ALLOWANCE}. Aliases are for sharing (PyYAML writes `&id001` and `*id001` for
 * every list or dict that several records share); a file that expands beyond that is an alias
 * bomb, exponential ("billion laughs") or quadratic (a long list aliased by every record), whose
 * expansion would hang loading and fill the disk when the dataset is saved.
 */
const ALIAS_GROWTH = 10;
const ALIAS_ALLOWANCE = 100_000;

/**
 * Measures what the document expands to, without expanding it (each anchor's size is computed
 * once), and refuses an alias bomb (see {@link ALIAS_GROWTH}) or an alias inside the collection
 * its anchor names (a cycle, which no dataset can hold), naming the line and column.
 */
function expectAliases(document: Document, path: string, text: string): void {
  const anchors = new Map<string, unknown>();
  const sizes = new Map<unknown, number>();
  const open = new Set<unknown>();
  let spelled = 0;
  let firstAliasAt: number | undefined;
  const at = (offset: number | undefined, note = ""): Place => {
    const { line, column } = lineColumnAt(text, offset ?? 0);
    return { text: `${path}: line ${line}, column ${column}${note}`, path, line, column };
  };
  const size = (node: unknown): number => {
    if (isPair(node)) return size(node.key) + size(node.value);
    if (!isNode(node)) return node === null || node === undefined ? 0 : 1;
    spelled++;
    if (isAlias(node)) {
      firstAliasAt ??= node.range?.[0];
      const source = anchors.get(node.source);
      // An unknown anchor: toJS reports it.
      if (source === undefined) return 1;
      if (open.has(source)) {
        throw inputError(
          at(node.range?.[0]),
          `invalid YAML: the alias *${node.source} is inside the collection that &${node.source} names, so it would hold itself (a cycle), which a dataset cannot hold`,
        );
      }
      return sizes.get(source) ?? 1;
    }
    const anchor = node.anchor;
    if (anchor !== undefined) anchors.set(anchor, node);
    let total = 1;
    if (isCollection(node)) {
      if (anchor !== undefined) open.add(node);
      for (const item of node.items) total += size(item);
      if (anchor !== undefined) open.delete(node);
    }
    if (anchor !== undefined) sizes.set(node, total);
    return total;
  };
  const total = size(document.contents);
  const limit = ALIAS_GROWTH * spelled + ALIAS_ALLOWANCE;
  if (total > limit) {
    throw inputError(
      at(firstAliasAt, " (the first alias)"),
      `invalid YAML: Excessive alias count: the aliases expand the ${spelled} values the file spells out to ${total > 1e15 ? "more than 10^15" : total}, more than ${ALIAS_GROWTH} times as many plus ${ALIAS_ALLOWANCE} (an alias bomb); write the data out`,
    );
  }
}

/** Where a YAML error or warning is: its file, and its line and column when it has them. */
function where(path: string, error: unknown): Place {
  const position = (error as Partial<YAMLError> | null)?.linePos?.[0];
  if (position === undefined) return { text: path, path };
  const { line, col: column } = position;
  return { text: `${path}: line ${line}, column ${column}`, path, line, column };
}

function firstAlias(path: string, text: string, parsed: Document): Place | undefined {
  let offset: number | undefined;
  visit(parsed, {
    Alias(_, node) {
      offset = node.range?.[0];
      return visit.BREAK;
    },
  });
  if (offset === undefined) return undefined;
  const { line, column } = lineColumnAt(text, offset);
  return { text: `${path}: line ${line}, column ${column} (the first alias)`, path, line, column };
}

function firstLine(message: string): string {
  const newline = message.indexOf("\n");
  return newline === -1 ? message : message.slice(0, newline);
}
