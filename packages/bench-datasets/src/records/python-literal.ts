/**
 * Python reprs as pandas writes object cells to CSV: `str(value)` of a list (`['a', "b's", 3]`),
 * of a dict (`{'text': ['a'], 'answer_start': [1]}`), or of the NumPy arrays that Arrow lists
 * become in pandas (`array(['a', 'b'], dtype=object)`): Hugging Face `datasets` writes SQuAD's
 * `answers` column to CSV as `{'text': array([...], dtype=object), 'answer_start': array([...],
 * dtype=int32)}`. Also what `str()` of a NumPy array holds, where pandas writes one as a cell (a
 * column of lists after Hugging Face's `Dataset.flatten()`): `['Denver Broncos' 'Broncos']`, its
 * items apart by spaces or newlines, with no commas. And NumPy 2's scalar reprs, which a list of
 * NumPy scalars shows: `[np.str_('a'), np.int64(3)]`. Nothing is evaluated: this reads literals
 * only.
 */

const ESCAPES: Readonly<Record<string, string>> = {
  "\\": "\\",
  "'": "'",
  '"': '"',
  n: "\n",
  t: "\t",
  r: "\r",
};

/** Marks a failed parse (`null` is Python's `None`). */
const FAIL = Symbol("fail");

const NUMBER = /-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?/y;
const WORD = /(?:True|False|None|array)\b/y;
/** NumPy 2's scalar reprs: `np.str_('a')`, `np.int64(3)`, `np.float64(0.5)`, `np.True_`. */
const NUMPY_SCALAR =
  /np\.(?:str_|bool_?|True_|False_|u?int(?:8|16|32|64|c|p)?|float(?:16|32|64|128)?|longlong|ulonglong|longdouble|double|single|half)\b/y;
const DTYPE = /dtype\s*=\s*(?:[A-Za-z_][\w.]*|'[^']*'|"[^"]*")/y;

/** Deeper nesting is not a cell pandas writes; refusing it keeps the stack bounded. */
const MAX_DEPTH = 32;

class Cursor {
  i = 0;
  private depth = 0;
  constructor(readonly text: string) {}

  space(): void {
    const t = this.text;
    while (this.i < t.length) {
      const c = t.charCodeAt(this.i);
      if (c !== 32 && c !== 9 && c !== 10 && c !== 13) break;
      this.i++;
    }
  }

  /** The text `pattern` (a sticky regex) matches at the cursor, which moves past it. */
  private match(pattern: RegExp): string | undefined {
    pattern.lastIndex = this.i;
    const found = pattern.exec(this.text);
    if (found === null) return undefined;
    this.i += found[0].length;
    return found[0];
  }

  value(): unknown {
    if (this.depth === MAX_DEPTH) return FAIL;
    this.depth++;
    const value = this.scalarOrNested();
    this.depth--;
    return value;
  }

  private scalarOrNested(): unknown {
    this.space();
    const c = this.text[this.i];
    if (c === "'" || c === '"') return this.string(c);
    if (c === "[") return this.sequence("]");
    if (c === "(") return this.sequence(")");
    if (c === "{") return this.dict();
    const number = this.match(NUMBER);
    if (number !== undefined) return numberValue(number);
    const scalar = this.match(NUMPY_SCALAR);
    if (scalar !== undefined) return this.numpyScalar(scalar);
    const word = this.match(WORD);
    if (word === undefined) return FAIL;
    if (word === "True") return true;
    if (word === "False") return false;
    if (word === "None") return null;
    return this.array();
  }

  /** NumPy's repr: `array([...], dtype=object)`, read as its list. */
  private array(): unknown {
    this.space();
    if (this.text[this.i] !== "(") return FAIL;
    this.i++;
    const list = this.value();
    if (!Array.isArray(list)) return FAIL;
    this.space();
    if (this.text[this.i] === ",") {
      this.i++;
      this.space();
      if (this.match(DTYPE) === undefined) return FAIL;
      this.space();
    }
    if (this.text[this.i] !== ")") return FAIL;
    this.i++;
    return list;
  }

  /** After `np.int64` and the like: `(literal)`, read as the literal; `np.True_` is `true`. */
  private numpyScalar(type: string): unknown {
    if (type === "np.True_") return true;
    if (type === "np.False_") return false;
    this.space();
    if (this.text[this.i] !== "(") return FAIL;
    this.i++;
    const inner = this.value();
    if (inner === FAIL || (typeof inner === "object" && inner !== null)) return FAIL;
    this.space();
    if (this.text[this.i] !== ")") return FAIL;
    this.i++;
    return inner;
  }

  private string(quote: string): string | typeof FAIL {
    const t = this.text;
    let out = "";
    this.i++;
    for (;;) {
      if (this.i >= t.length) return FAIL;
      const c = t[this.i] as string;
      if (c === quote) break;
      if (c !== "\\") {
        out += c;
        this.i++;
        continue;
      }
      const e = t[this.i + 1];
      if (e !== undefined && Object.hasOwn(ESCAPES, e)) {
        out += ESCAPES[e];
        this.i += 2;
        continue;
      }
      // \xhh, \uhhhh, \Uhhhhhhhh: how repr() writes characters that are not printable.
      const digits = e === "x" ? 2 : e === "u" ? 4 : e === "U" ? 8 : 0;
      const hex = t.slice(this.i + 2, this.i + 2 + digits);
      if (digits === 0 || !/^[0-9a-fA-F]+$/.test(hex) || hex.length !== digits) return FAIL;
      const code = Number.parseInt(hex, 16);
      if (code > 0x10ffff) return FAIL;
      out += String.fromCodePoint(code);
      this.i += 2 + digits;
    }
    this.i++;
    return out;
  }

  /**
   * A list or tuple; Python allows a trailing comma. A list may instead have its items apart by
   * whitespace alone, as `str()` of a NumPy array writes them (`['a' 'b']`, `[1 2]`): read as
   * separate items, never as Python's implicit concatenation (`'a' 'b'` is `'ab'` in source
   * code, which pandas never writes). One list does not mix the two.
   */
  private sequence(close: string): unknown[] | typeof FAIL {
    const out: unknown[] = [];
    let separator: "comma" | "space" | undefined;
    this.i++;
    for (;;) {
      this.space();
      if (this.text[this.i] === close) break;
      const item = this.value();
      if (item === FAIL) return FAIL;
      out.push(item);
      const before = this.i;
      this.space();
      const c = this.text[this.i];
      if (c === close) continue;
      if (c === ",") {
        if (separator === "space") return FAIL;
        separator = "comma";
        this.i++;
      } else if (close === "]" && this.i > before && separator !== "comma") {
        separator = "space";
      } else return FAIL;
    }
    this.i++;
    return out;
  }

  private dict(): Record<string, unknown> | typeof FAIL {
    // A plain object of data: `__proto__` is defined as an own key, never the prototype.
    const out: Record<string, unknown> = {};
    this.i++;
    for (;;) {
      this.space();
      if (this.text[this.i] === "}") break;
      const c = this.text[this.i];
      if (c !== "'" && c !== '"') return FAIL;
      const key = this.string(c);
      if (key === FAIL) return FAIL;
      this.space();
      if (this.text[this.i] !== ":") return FAIL;
      this.i++;
      const item = this.value();
      if (item === FAIL) return FAIL;
      Object.defineProperty(out, key, {
        value: item,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      this.space();
      if (this.text[this.i] === ",") this.i++;
      else if (this.text[this.i] !== "}") return FAIL;
    }
    this.i++;
    return out;
  }
}

/** A whole number: the digits of an integer literal, which a double may not hold as written. */
const INTEGER = /^-?\d+$/;

/**
 * A number literal's value. An integer that a double would change (beyond 2^53, where NumPy's
 * int64 ids are exact, or written with leading zeros, `[0012]`) is kept as its digits, a string:
 * list items become text anyway, and an id must keep every digit to match.
 */
function numberValue(literal: string): number | string {
  const value = Number(literal);
  return INTEGER.test(literal) && String(value) !== literal ? literal : value;
}

/**
 * A Python literal (strings, numbers, `True`/`False`/`None`, lists, tuples, dicts with string
 * keys, NumPy `array(...)` reprs) as a JSON-like value; `undefined` when `text` is anything else.
 * An integer a double would change is its digits, a string (`12345678901234567890`, `0012`).
 */
export function parsePythonLiteral(text: string): unknown {
  const cursor = new Cursor(text);
  const value = cursor.value();
  if (value === FAIL) return undefined;
  cursor.space();
  return cursor.i === text.length ? value : undefined;
}

/** A Python list literal whose every item `accept` takes; `undefined` for anything else. */
function parseListOf<T>(text: string, accept: (item: unknown) => item is T): T[] | undefined {
  const value = parsePythonLiteral(text);
  if (!Array.isArray(value)) return undefined;
  for (const item of value) if (!accept(item)) return undefined;
  return value as T[];
}

const isScalar = (item: unknown): item is string | number =>
  typeof item === "string" || typeof item === "number";

const isAnswer = (item: unknown): item is string | number | { text: string } =>
  isScalar(item) ||
  (typeof item === "object" &&
    item !== null &&
    !Array.isArray(item) &&
    typeof (item as { text?: unknown }).text === "string");

/**
 * A Python list literal of strings and numbers, as pandas writes a list cell (`['a', "b's", 3]`);
 * `undefined` for anything else.
 */
export function parsePythonList(text: string): (string | number)[] | undefined {
  return parseListOf(text, isScalar);
}

/**
 * A Python list of answers: as {@link parsePythonList}, and also of answer dicts with a string
 * `text`, as pandas writes SQuAD's answers after `json_normalize`
 * (`[{'answer_start': 177, 'text': 'Denver Broncos'}]`); the caller reads their texts.
 * `undefined` for anything else.
 */
export function parsePythonAnswerList(
  text: string,
): (string | number | { text: string })[] | undefined {
  return parseListOf(text, isAnswer);
}
