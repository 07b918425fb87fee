/**
 * Characters a terminal acts on rather than shows: C0 controls (ESC starts an ANSI sequence that
 * can clear the screen, recolour or retitle it; CR rewrites the line), DEL, C1 controls (U+009B is
 * a one-character CSI), and the bidirectional embedding, override and isolate controls, which
 * reorder how the rest of a line reads.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** The same, but for a whole document: line feeds, CRLF line ends and tabs are layout. */
const CONTROL_BUT_LAYOUT =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
  /\r(?!\n)|[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

const SHORT: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

function escapeChar(ch: string): string {
  return SHORT[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

/**
 * Text from a result file (a run name, a sample id, an error message) made safe to print in a
 * one-line message: every control character shows as its escape (`\n`, `\u001b`), so a name can
 * neither act on the terminal nor break the line. Other Unicode (accents, CJK, emoji) is kept.
 *
 * @example
 * ```ts
 * printable("\u001b[2Jbm25\n"); // "\\u001b[2Jbm25\\n"
 * ```
 */
export function printable(text: string): string {
  return text.replace(CONTROL, escapeChar);
}

/**
 * A rendered document made safe to show on a terminal: as {@link printable}, but line feeds, CRLF
 * line ends and tabs are kept. On JSON text (where a control character can only sit inside a
 * string, C0 ones already escaped) it gives equivalent JSON: the escapes are JSON's own. A CSV or
 * HTML document goes through it only when stdout is a terminal, so a file or a pipe gets it byte
 * for byte.
 */
export function terminalSafe(text: string): string {
  return text.replace(CONTROL_BUT_LAYOUT, escapeChar);
}
