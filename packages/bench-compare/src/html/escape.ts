const HTML_ESCAPES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/**
 * Escapes text for HTML element content and quoted attribute values: `& < > " '`. Every piece of
 * user text in the report (run names, questions, answers, ids, error messages) goes through it,
 * so `<img src=x onerror=…>` or `</script>` in a result shows literally and never runs.
 *
 * @example
 * ```ts
 * escapeHtml("<b>&</b>"); // "&lt;b&gt;&amp;&lt;/b&gt;"
 * ```
 */
export function escapeHtml(text: string): string {
  return String(text).replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch] as string);
}

/**
 * JSON for a `<script type="application/json">` block: `<`, `>`, `&`, U+2028 and U+2029 become
 * `\uXXXX` escapes, so no string inside can close the script element (`</script>`), open a
 * comment (`<!--`), or end a line for old JavaScript parsers. `JSON.parse` reads it back unchanged.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (ch) => {
    const hex = ch.charCodeAt(0).toString(16).padStart(4, "0");
    return `\\u${hex}`;
  });
}

/** Shortens text to `max` characters (by code point), ending in `…` when cut. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join("")}…`;
}
