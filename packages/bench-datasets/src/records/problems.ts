import {
  ConfigurationError,
  type ConfigurationErrorFields,
  describeValue,
} from "@fastrag/bench-core/internal/base";

/**
 * True for a number whose decimal form is the one in the file: finite, and not an integer beyond
 * 2^53. JSON and YAML numbers are read as doubles, so an id such as 12345678901234567890 arrives
 * rounded (…000), and would silently match nothing.
 */
export function isExactNumber(value: number): boolean {
  return Number.isFinite(value) && (Number.isSafeInteger(value) || !Number.isInteger(value));
}

/** What a message says after "found …" for a number that is not {@link isExactNumber}. */
export function describeInexact(value: number): string {
  return Number.isFinite(value)
    ? `the number ${value}, an integer beyond 2^53 that cannot be read exactly (it was rounded); write it as a string`
    : describeValue(value);
}

/**
 * Where a problem is: the words a message starts with (`data.yaml: line 3, column 5`), and the
 * same as the error's fields, for code.
 */
export interface Place {
  readonly text: string;
  readonly path?: string;
  readonly line?: number;
  readonly column?: number;
  readonly field?: string;
}

/** A place in a file: `<path>: <where>`, the path as a field too (and `field`, when given). */
export function inFile(path: string, where: string, field?: string): Place {
  return field === undefined
    ? { text: `${path}: ${where}`, path }
    : { text: `${path}: ${where}`, path, field };
}

/** A line of a file: `<path>: line <n>`, with its path and line as fields. */
export function atLine(path: string, line: number): Place {
  return { text: `${path}: line ${line}`, path, line };
}

/**
 * A field of a line of whitespace-separated fields (TREC runs, qrels, topics):
 * `<source>: line L, column C (<name>)`, with `source` as the path when it is a file.
 */
export function fieldAt(
  source: string,
  line: number,
  column: number,
  name: string,
  file = true,
): Place {
  const text = `${source}: line ${line}, column ${column} (${name})`;
  return file
    ? { text, path: source, line, column, field: name }
    : { text, line, column, field: name };
}

/**
 * `place` narrowed to one of its fields or columns: `, column "<field>"` (or `label`) after its
 * words, `field` its name, and `column` its 1-based number when the message gives one.
 */
export function inColumn(place: Place, field: string, label?: string, column?: number): Place {
  return {
    ...place,
    text: `${place.text}, ${label ?? `column "${field}"`}`,
    field,
    ...(column !== undefined ? { column } : {}),
  };
}

/**
 * Builds a ConfigurationError whose message starts with the place it is about (`where`), and whose
 * fields say the same for code: `kind` (`invalid-input` unless `fields` says otherwise) and the
 * `path`, `line`, `column` and `field` of `where` (a {@link Place}) or of `fields`.
 */
export function inputError(
  where: string | Place,
  message: string,
  fields: ConfigurationErrorFields = {},
): ConfigurationError {
  if (typeof where === "string") {
    return new ConfigurationError(`${where}: ${message}`, {
      ...fields,
      kind: fields.kind ?? "invalid-input",
    });
  }
  const { text, ...place } = where;
  return new ConfigurationError(`${text}: ${message}`, {
    ...place,
    ...fields,
    kind: fields.kind ?? "invalid-input",
  });
}

/** The message of any thrown value. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * True for a non-null object of named fields: not an array, bytes, a Map, a Set or a Date, whose
 * entries are no own properties (a `relevance` Map read as an object would be `{}`, its grades
 * lost without a word).
 */
export function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof Uint8Array) &&
    !(value instanceof Map) &&
    !(value instanceof Set) &&
    !(value instanceof Date)
  );
}

/**
 * An empty plain object for many data keys (docno → grade). It starts in V8's dictionary mode, so
 * adding thousands of distinct keys does not build a hidden-class transition per key (see
 * docs/decisions/datasets-reading.md); its prototype is the ordinary `Object.prototype`.
 */
export function newRecord<T>(): Record<string, T> {
  return Object.setPrototypeOf(Object.create(null), Object.prototype) as Record<string, T>;
}
