/**
 * Characters a terminal or a renderer acts on rather than shows: C0 controls (ESC starts an ANSI
 * sequence), DEL, C1 controls (U+009B is a one-character CSI), and the bidirectional embedding,
 * override and isolate controls, which reorder how the rest of a line reads.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
export const CONTROL_CHARACTERS: RegExp = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** The same but for C0, which `JSON.stringify` escapes itself: what JSON text may still hold raw. */
export const CONTROL_CHARACTERS_BUT_C0: RegExp = /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** A character as its `\uXXXX` escape, which shows as text and reads back in JSON as itself. */
export function unicodeEscape(ch: string): string {
  return `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`;
}
