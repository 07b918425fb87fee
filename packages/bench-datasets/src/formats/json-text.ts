import { inputError, messageOf } from "../records/problems.js";

/** Line and column (both 1-based) of a character offset. */
export function lineColumnAt(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
}

/**
 * Parses JSON; on a syntax error throws a ConfigurationError naming the line and column.
 * `firstLine` shifts line numbers when `text` is one line of a larger file (JSONL).
 */
export function parseJson(text: string, source: string, firstLine = 1): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const offset = syntaxErrorOffset(text);
    const { line, column } = lineColumnAt(text, offset);
    const found =
      offset >= text.length
        ? "the end of the input"
        : JSON.stringify(text.slice(offset, offset + 12));
    throw inputError(
      `${source}: line ${line + firstLine - 1}, column ${column}`,
      `invalid JSON at ${found} (${messageOf(error)})`,
      { path: source, line: line + firstLine - 1, column, cause: error },
    );
  }
}

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);

/**
 * Offset of the first JSON syntax error in `text` (its length when the text ends too early).
 * Only called after JSON.parse failed: Node 20's messages carry no position. Iterative, so deep
 * nesting cannot overflow the stack.
 */
export function syntaxErrorOffset(text: string): number {
  return new JsonScanner(text).firstError();
}

/** What a scanning step returns when the text is well-formed so far (an error is its offset). */
const OK = -1;
/** What a scanning step returns when the top-level value is complete. */
const END = -2;

/**
 * Scans JSON text for its first syntax error: a state machine that expects a value, then a
 * separator or a closer, with a stack of the arrays (0) and objects (1) it is in.
 */
class JsonScanner {
  private i = 0;
  private readonly n: number;
  private readonly stack: number[] = [];
  private expectValue = true;
  /** Just past an opener: its closer may come instead of a value. */
  private afterOpen = false;

  constructor(private readonly text: string) {
    this.n = text.length;
  }

  firstError(): number {
    for (;;) {
      const at = this.expectValue ? this.valueStep() : this.separatorStep();
      if (at === END) break;
      if (at !== OK) return at;
    }
    this.skip();
    return this.i;
  }

  /** Where a value is expected: a closer right after an opener, a key, an opener or a value. */
  private valueStep(): number {
    const { text, stack } = this;
    this.skip();
    const c = text[this.i];
    if (
      this.afterOpen &&
      ((c === "]" && stack.at(-1) === 0) || (c === "}" && stack.at(-1) === 1))
    ) {
      return this.close();
    }
    this.afterOpen = false;
    if (stack.at(-1) === 1) {
      // a key, then a colon
      if (c !== '"' || !this.string()) return this.i;
      this.skip();
      if (text[this.i] !== ":") return this.i;
      this.i++;
      this.skip();
    }
    const open = text[this.i];
    if (open === "[" || open === "{") {
      stack.push(open === "[" ? 0 : 1);
      this.i++;
      this.afterOpen = true;
      return OK;
    }
    if (!this.value()) return this.i;
    this.expectValue = false;
    return stack.length === 0 ? END : OK;
  }

  /** After a value: a comma, or the closer of the array or object it is in. */
  private separatorStep(): number {
    this.skip();
    const c = this.text[this.i];
    const top = this.stack.at(-1);
    if (c === ",") {
      this.i++;
      this.expectValue = true;
      return OK;
    }
    if ((c === "]" && top === 0) || (c === "}" && top === 1)) return this.close();
    return this.i;
  }

  /** Past a closer: the array or object is a value, which may end the top level. */
  private close(): number {
    this.i++;
    this.stack.pop();
    this.afterOpen = false;
    this.expectValue = false;
    return this.stack.length === 0 ? END : OK;
  }

  private skip(): void {
    while (this.i < this.n && WS.has(this.text.charCodeAt(this.i))) this.i++;
  }

  private literal(word: string): boolean {
    if (!this.text.startsWith(word, this.i)) return false;
    this.i += word.length;
    return true;
  }

  /** A string starting at its opening quote; false at the first character that breaks it. */
  private string(): boolean {
    const { text, n } = this;
    this.i++;
    while (this.i < n) {
      const c = text.charCodeAt(this.i);
      if (c === 0x22) {
        this.i++;
        return true;
      }
      if (c < 0x20) return false;
      if (c !== 0x5c) {
        this.i++;
        continue;
      }
      const e = text[this.i + 1];
      if (e === undefined) {
        this.i = n;
        return false;
      }
      if (e === "u") {
        if (!/^[0-9a-fA-F]{4}$/.test(text.slice(this.i + 2, this.i + 6))) {
          this.i += 2;
          return false;
        }
        this.i += 6;
      } else if ('"\\/bfnrt'.includes(e)) this.i += 2;
      else {
        this.i++;
        return false;
      }
    }
    return false;
  }

  private number(): boolean {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(
      this.text.slice(this.i, this.i + 400),
    );
    if (match === null || match[0].length === 0) return false;
    this.i += match[0].length;
    return true;
  }

  /** A value other than an array or an object (their openers are the state machine's). */
  private value(): boolean {
    this.skip();
    const c = this.text[this.i];
    if (c === '"') return this.string();
    if (c === "t") return this.literal("true");
    if (c === "f") return this.literal("false");
    if (c === "n") return this.literal("null");
    return this.number();
  }
}
