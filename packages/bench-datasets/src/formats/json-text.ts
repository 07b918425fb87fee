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
  let i = 0;
  const n = text.length;
  const stack: number[] = []; // 0 = array, 1 = object
  const skip = () => {
    while (i < n && WS.has(text.charCodeAt(i))) i++;
  };
  const literal = (word: string): boolean => {
    if (text.startsWith(word, i)) {
      i += word.length;
      return true;
    }
    return false;
  };
  const string = (): boolean => {
    i++;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return true;
      }
      if (c < 0x20) return false;
      if (c === 0x5c) {
        const e = text[i + 1];
        if (e === undefined) {
          i = n;
          return false;
        }
        if (e === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
            i += 2;
            return false;
          }
          i += 6;
        } else if ('"\\/bfnrt'.includes(e)) i += 2;
        else {
          i++;
          return false;
        }
      } else i++;
    }
    return false;
  };
  const number = (): boolean => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (match === null || match[0].length === 0) return false;
    i += match[0].length;
    return true;
  };
  const value = (): boolean => {
    skip();
    const c = text[i];
    if (c === '"') return string();
    if (c === "{" || c === "[") return true; // handled by the caller's loop
    if (c === "t") return literal("true");
    if (c === "f") return literal("false");
    if (c === "n") return literal("null");
    return number();
  };
  // The state machine: expect a value, then a separator or a closer.
  let expectValue = true;
  let afterOpen = false;
  for (;;) {
    if (expectValue) {
      skip();
      const c = text[i];
      if (afterOpen && ((c === "]" && stack.at(-1) === 0) || (c === "}" && stack.at(-1) === 1))) {
        i++;
        stack.pop();
        afterOpen = false;
        expectValue = false;
        if (stack.length === 0) break;
        continue;
      }
      afterOpen = false;
      if (stack.at(-1) === 1) {
        // a key, then a colon
        if (c !== '"' || !string()) return i;
        skip();
        if (text[i] !== ":") return i;
        i++;
        skip();
      }
      const open = text[i];
      if (open === "[" || open === "{") {
        stack.push(open === "[" ? 0 : 1);
        i++;
        afterOpen = true;
        continue;
      }
      if (!value()) return i;
      expectValue = false;
      if (stack.length === 0) break;
    } else {
      skip();
      const c = text[i];
      const top = stack.at(-1);
      if (c === ",") {
        i++;
        expectValue = true;
      } else if ((c === "]" && top === 0) || (c === "}" && top === 1)) {
        i++;
        stack.pop();
        if (stack.length === 0) break;
      } else return i;
    }
  }
  skip();
  return i;
}
