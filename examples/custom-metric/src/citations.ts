/**
 * The default citation syntax: an id in square brackets, `[doc-3]`, or several separated by
 * commas, `[doc-3, doc-7]`. A bracket followed by `(` is a Markdown link's text, not a citation.
 */
export const DEFAULT_CITATION_PATTERN: RegExp = /\[([^[\]\s,]+(?:\s*,\s*[^[\]\s,]+)*)\](?!\()/g;

/**
 * The distinct ids an answer cites, in order of first citation.
 *
 * `pattern` must be global and capture the citation's content in group 1; a captured group holding
 * several ids separates them with commas.
 *
 * @example
 * ```ts
 * citedIds("Paris [doc-1], since 1889 [doc-3, doc-1]."); // ["doc-1", "doc-3"]
 * ```
 */
export function citedIds(answer: string, pattern: RegExp = DEFAULT_CITATION_PATTERN): string[] {
  const seen = new Set<string>();
  const ids: string[] = [];
  pattern.lastIndex = 0;
  for (const match of answer.matchAll(pattern)) {
    const group = match[1];
    if (group === undefined) continue;
    for (const part of group.split(",")) {
      const id = part.trim();
      if (id === "" || seen.has(id)) continue;
      seen.add(id);
      ids.push(id);
    }
  }
  return ids;
}
