import { atLine, inFile, inputError } from "../records/problems.js";

/** Which part of an SGML TREC topic becomes the question. */
export type TopicField = "title" | "description" | "narrative";

/**
 * Parses TREC topics: the SGML format (`<top> <num> Number: 301 <title> … <desc> …`), or one
 * topic per line as `qid<TAB>text` (a query TSV, e.g. MS MARCO's `queries.tsv`).
 *
 * @throws ConfigurationError for a topic without a number or the chosen field, a line without a
 *   tab-separated text, or a topic number given twice.
 */
export function parseTopics(
  text: string,
  source: string,
  field: TopicField = "title",
): Map<string, string> {
  const topics = new Map<string, string>();
  if (/<top>/i.test(text)) {
    const blocks = text.split(/<top>/i).slice(1);
    const tag = { title: "title", description: "desc", narrative: "narr" }[field];
    for (let b = 0; b < blocks.length; b++) {
      const block = blocks[b]!.split(/<\/top>/i)[0]!;
      const where = inFile(source, `topic ${b + 1}`);
      const num = sgmlField(block, "num")?.replace(/^Number:\s*/i, "");
      if (num === undefined || num.length === 0)
        throw inputError(where, "expected a <num> field with the topic number", { field: "num" });
      let value = sgmlField(block, tag);
      if (value !== undefined) value = value.replace(/^(Topic|Description|Narrative):\s*/i, "");
      if (value === undefined || value.length === 0) {
        throw inputError(
          { ...where, text: `${where.text} (${num})`, field: tag },
          `expected a non-empty <${tag}> field`,
        );
      }
      if (topics.has(num)) throw inputError(where, `topic ${num} is given twice`);
      topics.set(num, value);
    }
    return topics;
  }
  const lines = text.split("\n");
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]!.replace(/\r$/, "");
    if (line.trim().length === 0) continue;
    const tab = line.indexOf("\t");
    const where = atLine(source, n + 1);
    if (tab <= 0 || line.slice(tab + 1).trim().length === 0) {
      throw inputError(
        { ...where, text: `${where.text}, column ${tab <= 0 ? 1 : 2}`, column: tab <= 0 ? 1 : 2 },
        'expected "qid<TAB>topic text" (or SGML <top> topics)' +
          (/<topics?\b/i.test(text)
            ? `; XML topics (<topic number="…">, as TREC Web and TREC-COVID write them) are not read: write each as a "qid<TAB>text" line`
            : ""),
      );
    }
    const qid = line.slice(0, tab).trim();
    if (topics.has(qid)) throw inputError(where, `topic ${qid} is given twice`);
    topics.set(qid, line.slice(tab + 1).trim());
  }
  return topics;
}

function sgmlField(block: string, tag: string): string | undefined {
  const match = new RegExp(`<${tag}>([\\s\\S]*?)(?=<[a-z/]|$)`, "i").exec(block);
  return match === null ? undefined : match[1]!.replace(/\s+/g, " ").trim();
}
