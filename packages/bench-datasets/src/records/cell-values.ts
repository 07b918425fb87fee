import { describeValue, setOwn } from "@fastrag/bench-core/internal";
import type { SampleField } from "./column-mapping.js";
import { MAX_NESTING, plainValue, TooDeep } from "./plain-value.js";
import {
  describeInexact,
  inputError,
  isExactNumber,
  isPlainRecord,
  newRecord,
  type Place,
} from "./problems.js";
import { parsePythonAnswerList, parsePythonList, parsePythonLiteral } from "./python-literal.js";
import type { RecordPositions } from "./record-positions.js";

const hasOwn = Object.hasOwn;

/**
 * Reads one cell (or record value) as a sample field: ids, questions, lists of answers or ids,
 * relevance grades, metadata. Text cells (CSV, TSV) may hold JSON, or Python's repr as pandas
 * writes it. Errors name the record and the column.
 */
export class CellValues {
  private readonly positions: RecordPositions;
  private readonly columnOf: ReadonlyMap<SampleField, string>;
  private readonly warnings: string[];
  /** CSV cells are strings: parse cells holding a JSON array/object where a list/object is expected. */
  private readonly cellsAreText: boolean;
  /** Nobody else holds the records' arrays: lists of strings are kept instead of copied. */
  private readonly ownsRecords: boolean;
  private readonly bracketNoted = new Set<string>();

  constructor(
    positions: RecordPositions,
    columnOf: ReadonlyMap<SampleField, string>,
    warnings: string[],
    cellsAreText: boolean,
    ownsRecords: boolean,
  ) {
    this.positions = positions;
    this.columnOf = columnOf;
    this.warnings = warnings;
    this.cellsAreText = cellsAreText;
    this.ownsRecords = ownsRecords;
  }

  /** `source: line 7, column "<field's column>"`, for messages, and as the errors' fields. */
  private inColumn(field: SampleField, position: number, label: string | undefined): Place {
    return this.positions.place(position, label, this.columnOf.get(field));
  }

  /**
   * A sample id: a string, or an exact number or BigInt as text; `undefined` for none.
   * @throws {ConfigurationError} for anything else.
   */
  idOf(raw: unknown, position: number, label?: string): string | undefined {
    if (raw === undefined || raw === null || raw === "") return undefined;
    if (typeof raw === "string") return raw;
    if (typeof raw === "number" && isExactNumber(raw)) return String(raw);
    if (typeof raw === "bigint") return String(raw);
    throw inputError(
      this.inColumn("id", position, label),
      `expected an id (a string or number), found ${typeof raw === "number" ? describeInexact(raw) : describeValue(raw)}`,
    );
  }

  /**
   * A question: a string not blank, or an exact number as text.
   * @throws {ConfigurationError} for anything else.
   */
  questionOf(raw: unknown, position: number, label?: string): string {
    let question: string;
    if (typeof raw === "string") question = raw;
    else if (typeof raw === "number" && isExactNumber(raw)) question = String(raw);
    else question = "";
    if (isBlankText(question)) {
      throw inputError(
        this.inColumn("question", position, label),
        `expected a question (a non-empty string), found ${typeof raw === "number" ? describeInexact(raw) : describeValue(raw)}`,
      );
    }
    return question;
  }

  /**
   * A list of answers or ids: a list of strings (or exact numbers), one string, an answers object
   * (`{text: [...]}`); in text cells JSON or a Python list. `[]` for no value.
   * @throws {ConfigurationError} for anything else, or an empty id.
   */
  listOf(
    raw: unknown,
    field: "expectedAnswers" | "relevantIds",
    position: number,
    label?: string,
  ): string[] {
    if (raw === undefined || raw === null) return [];
    if (typeof raw === "string") return this.textList(raw, field, position, label);
    return this.valueList(raw, raw, field, position, label);
  }

  /** {@link listOf} for a string: one answer or id, or in a text cell a list written out. */
  private textList(
    raw: string,
    field: "expectedAnswers" | "relevantIds",
    position: number,
    label: string | undefined,
  ): string[] {
    // An empty id cell means "no relevant ids" in every format, as an empty id field in a text
    // cell does (an empty id would never match a retrieved chunk). An empty answer stays: SQuAD
    // v2 grades an unanswerable question against the empty answer.
    if (raw === "" && field === "relevantIds") return [];
    if (!this.cellsAreText) return [raw];
    if (raw === "") return [];
    const first = raw.charCodeAt(0);
    if (first === 91 /* [ */) {
      const parsed = parseJsonCell(raw);
      // pandas writes a list column as Python's repr: ['doc-1', 'doc-7'], and SQuAD's answers as
      // a list of dicts: [{'answer_start': 177, 'text': 'Denver Broncos'}]. A list of integers is
      // JSON too, but JSON rounds those beyond 2^53: Python's reading keeps their digits.
      const python =
        Array.isArray(parsed) && !hasInexactNumber(parsed)
          ? undefined
          : field === "expectedAnswers"
            ? parsePythonAnswerList(raw)
            : parsePythonList(raw);
      if (python !== undefined) return this.valueList(python, raw, field, position, label);
      if (Array.isArray(parsed)) return this.valueList(parsed, raw, field, position, label);
      if (raw.trimEnd().endsWith("]")) this.noteBracketCell(field, raw, position, label);
      return [raw];
    }
    if (first === 123 /* { */ && field === "expectedAnswers") {
      // An answers object, as the JSON loaders read it: {"text": [...], "answer_start": [...]} in
      // JSON, or as Hugging Face `datasets` writes SQuAD to CSV (pandas' repr of it):
      // {'text': array(['Denver Broncos'], dtype=object), 'answer_start': array([177], ...)}.
      const parsed = answersObjectCell(raw);
      if (parsed !== undefined) return this.valueList(parsed, raw, field, position, label);
      if (raw.trimEnd().endsWith("}")) this.noteBracketCell(field, raw, position, label);
    }
    return [raw];
  }

  /**
   * {@link listOf} for a value that is not a string (`raw`, or what a text cell `raw` holds): an
   * exact number, an answers object, or a list.
   */
  private valueList(
    value: unknown,
    raw: unknown,
    field: "expectedAnswers" | "relevantIds",
    position: number,
    label: string | undefined,
  ): string[] {
    if (typeof value === "bigint" || (typeof value === "number" && isExactNumber(value)))
      return [String(value)];
    // Hugging Face SQuAD exports: answers = { text: [...], answer_start: [...] }.
    if (field === "expectedAnswers" && isPlainRecord(value) && hasOwn(value, "text")) {
      const squadShaped = hasOwn(value, "answer_start");
      value = value.text;
      if (typeof value === "string") return [value];
      // SQuAD v2's unanswerable questions: no answer span, which the official script grades
      // against the empty answer, as the nested SQuAD loader reads them.
      if (squadShaped && Array.isArray(value) && value.length === 0) return [""];
      if (!Array.isArray(value)) {
        // Name the answers object's text, not the whole cell or record it came in.
        throw inputError(
          this.inColumn(field, position, label),
          `an answers object's "text" should be a string or a list of strings, found ${typeof value === "number" ? describeInexact(value) : describeValue(value)}`,
        );
      }
    }
    if (!Array.isArray(value)) throw this.listError(field, raw, position, label);
    if ((this.ownsRecords || value !== raw) && isListOfIds(value)) return value as string[];
    return this.itemsOf(value, field, position, label);
  }

  /** A list's items as strings: answers objects' texts, exact numbers as text. */
  private itemsOf(
    value: readonly unknown[],
    field: "expectedAnswers" | "relevantIds",
    position: number,
    label: string | undefined,
  ): string[] {
    const out: string[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      let item: unknown = value[i];
      if (field === "expectedAnswers" && isPlainRecord(item) && typeof item.text === "string") {
        item = item.text;
      }
      if (typeof item === "string") {
        if (field === "relevantIds" && item.length === 0) {
          throw inputError(this.inColumn(field, position, label), `item ${i + 1} is an empty id`);
        }
        out[i] = item;
      } else if ((typeof item === "number" && isExactNumber(item)) || typeof item === "bigint") {
        out[i] = String(item);
      } else {
        throw inputError(
          this.inColumn(field, position, label),
          `item ${i + 1} should be a ${field === "relevantIds" ? "string id" : "string answer"}, found ${typeof item === "number" ? describeInexact(item) : describeValue(item)}`,
        );
      }
    }
    return out;
  }

  private listError(field: SampleField, raw: unknown, position: number, label?: string) {
    const column = this.columnOf.get(field);
    // A nested object such as TriviaQA's answer {aliases, value, …}: name its keys, and how to
    // reach the list inside, since a mapping names a column, not a path.
    const nested =
      isPlainRecord(raw) && Object.keys(raw).length > 0
        ? ` with keys ${Object.keys(raw)
            .slice(0, 6)
            .map((k) => JSON.stringify(k))
            .join(
              ", ",
            )}${Object.keys(raw).length > 6 ? ", …" : ""}; a mapping names a column, not a field inside one, so flatten the records first (Hugging Face's Dataset.flatten() makes "${column}.<key>" columns) and map one: { ${field}: "${column}.<key>" }`
        : "";
    return inputError(
      this.positions.place(position, label, column),
      `expected a string or a list of strings, found ${typeof raw === "number" ? describeInexact(raw) : describeValue(raw)}${nested}`,
    );
  }

  /**
   * Relevance grades: an object of id → number (in text cells, JSON); `undefined` for none.
   * @throws {ConfigurationError} for another value, an empty id or a grade that is no number.
   */
  relevanceOf(raw: unknown, position: number, label?: string): Record<string, number> | undefined {
    if (raw === undefined || raw === null || raw === "") return undefined;
    let value: unknown = raw;
    if (typeof raw === "string" && this.cellsAreText) value = parseJsonCell(raw);
    if (!isPlainRecord(value)) {
      throw inputError(
        this.inColumn("relevance", position, label),
        `expected an object of id → grade, found ${describeValue(raw)}`,
      );
    }
    const out: Record<string, number> = newRecord();
    for (const key in value) {
      if (!hasOwn(value, key)) continue;
      if (key === "") {
        // As an empty item of relevant_ids is: an empty id can never match a retrieved chunk.
        throw inputError(this.inColumn("relevance", position, label), "grades an empty id");
      }
      const grade = value[key];
      let number: number;
      if (typeof grade === "number") number = grade;
      else if (typeof grade === "bigint") number = Number(grade);
      else if (typeof grade === "string" && DECIMAL.test(grade)) number = Number(grade);
      else number = Number.NaN;
      if (!Number.isFinite(number)) {
        throw inputError(
          this.inColumn("relevance", position, label),
          `grade of ${JSON.stringify(key)} should be a number, found ${describeValue(grade)}`,
        );
      }
      setOwn(out, key, number);
    }
    return out;
  }

  /**
   * The metadata column's value: an object (in text cells, JSON); `undefined` for none.
   * @throws {ConfigurationError} for another value, or one nested too deeply.
   */
  metadataOf(
    value: unknown,
    position: number,
    label?: string,
  ): Record<string, unknown> | undefined {
    if (value === undefined || value === null || value === "") return undefined;
    let parsed: unknown = value;
    if (typeof value === "string" && this.cellsAreText && value.trimStart().startsWith("{")) {
      parsed = parseJsonCell(value);
    }
    if (!isPlainRecord(parsed)) {
      throw inputError(
        this.inColumn("metadata", position, label),
        `expected an object, found ${describeValue(value)}`,
      );
    }
    // A CSV cell's JSON holds no BigInt, but may be nested as deeply as any other.
    return this.plain(parsed, this.columnOf.get("metadata") as string, position, label) as Record<
      string,
      unknown
    >;
  }

  /**
   * {@link plainValue}: the value as JSON can hold it.
   * @throws {ConfigurationError} for a value nested too deeply, naming its column.
   */
  plain(value: unknown, column: string, position: number, label?: string): unknown {
    try {
      return plainValue(value, 0);
    } catch (error) {
      if (!(error instanceof TooDeep)) throw error;
      throw inputError(
        this.positions.place(position, label, column),
        `a value nested more than ${MAX_NESTING} levels deep (arrays or objects inside each other), or holding itself; flatten it (saving the dataset would overflow the stack)`,
      );
    }
  }

  /**
   * A cell in brackets that parses neither as JSON nor as a Python list (`["a", "b",]`, `[doc-3]`)
   * is kept as one literal value, as it may be an answer such as "[citation needed]"; say so,
   * once per column, since as ids it would match nothing. The same for an answers cell in braces
   * that is not an answers object (`{"answer": "x"}`, `{1, 2}`).
   */
  private noteBracketCell(
    field: "expectedAnswers" | "relevantIds",
    raw: string,
    position: number,
    label?: string,
  ): void {
    if (this.bracketNoted.has(field)) return;
    this.bracketNoted.add(field);
    const where = this.inColumn(field, position, label).text;
    if (raw.charCodeAt(0) === 123 /* { */) {
      this.warnings.push(
        `${where}: ${describeValue(raw)} looks like an object but is not an answers object ({"text": ["a", "b"]}, in JSON or Python), so it was read as one answer. Later cells of this column are not reported`,
      );
      return;
    }
    this.warnings.push(
      `${where}: ${describeValue(raw)} looks like a list but is neither JSON nor a Python list, so it was read as one ${field === "relevantIds" ? "id" : "answer"}; write lists as JSON arrays (["a", "b"])${field === "relevantIds" ? ", or the ids will match nothing" : ""}. Later cells of this column are not reported`,
    );
  }
}

/**
 * A grade written as text: a decimal number (`2`, `-1`, `0.5`, `1e2`), as CSV cells and Python
 * reprs hold them. `Number` alone also reads `0x10` as 16 and `0b1` as 1, which no grade column
 * means.
 */
const DECIMAL = /^\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*$/;

/**
 * The answers object an answers cell in braces holds, as JSON or as Python's repr: an object with
 * a `text` key (its value is checked as any answers object's is). `undefined` for anything else,
 * which is then one literal answer.
 */
function answersObjectCell(text: string): Record<string, unknown> | undefined {
  let parsed = parseJsonCell(text);
  if (parsed === text) parsed = parsePythonLiteral(text);
  return isPlainRecord(parsed) && hasOwn(parsed, "text") ? parsed : undefined;
}

/** True when a parsed list holds a number JSON could not read exactly (an integer beyond 2^53). */
function hasInexactNumber(list: readonly unknown[]): boolean {
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    if (typeof item === "number" && !isExactNumber(item)) return true;
  }
  return false;
}

/** JSON in a CSV cell; a cell that is not valid JSON stays as it is (it is plain text). */
function parseJsonCell(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** True for a string of only whitespace (without allocating a trimmed copy). */
function isBlankText(text: string): boolean {
  if (text.length === 0) return true;
  const c = text.charCodeAt(0);
  if (c > 32 && c < 127) return false;
  return text.trim().length === 0;
}

/** True for an array of non-empty strings: usable as it is for either list field. */
function isListOfIds(list: readonly unknown[]): boolean {
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    if (typeof item !== "string" || item.length === 0) return false;
  }
  return true;
}
