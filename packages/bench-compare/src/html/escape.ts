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

/** Shortens text to `max` characters (by code point), ending in `…` when cut. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join("")}…`;
}
