// The demo's corpus: SQuAD's paragraphs, cut three ways. Every chunk keeps the id of its paragraph
// (`<title>#<index>`, the id the SQuAD loader gives as each question's relevant id) as its
// documentId, so that runs with different chunkings are judged against one document-level truth.
import { readFile } from "node:fs/promises";

/** @typedef {{ id: string, documentId: string, title: string, text: string }} Chunk */

/**
 * Reads the paragraphs of a SQuAD file.
 * @param {string} path
 * @returns {Promise<{ id: string, title: string, text: string }[]>}
 */
export async function loadParagraphs(path) {
  const squad = JSON.parse(await readFile(path, "utf8"));
  const out = [];
  for (const article of squad.data) {
    article.paragraphs.forEach((p, i) => {
      out.push({ id: `${article.title}#${i}`, title: article.title, text: p.context });
    });
  }
  return out;
}

/** Sentence boundaries: end punctuation, space, then something that starts a sentence. */
const SENTENCE = /(?<=[.!?]["”’)]?)\s+(?=["“‘(]?[A-Z0-9])/u;

/**
 * Whole paragraphs: one chunk each.
 * @param {{ id: string, title: string, text: string }[]} paragraphs
 * @returns {Chunk[]}
 */
export function paragraphChunks(paragraphs) {
  return paragraphs.map((p) => ({ id: p.id, documentId: p.id, title: p.title, text: p.text }));
}

/**
 * Sliding windows of two consecutive sentences (stride one), so no sentence pair is split.
 * @param {{ id: string, title: string, text: string }[]} paragraphs
 * @returns {Chunk[]}
 */
export function sentenceWindowChunks(paragraphs) {
  const out = [];
  for (const p of paragraphs) {
    const sentences = p.text.split(SENTENCE).filter((s) => s.trim() !== "");
    const windows = Math.max(1, sentences.length - 1);
    for (let i = 0; i < windows; i++) {
      out.push({
        id: `${p.id}/s${i}`,
        documentId: p.id,
        title: p.title,
        text: sentences.slice(i, i + 2).join(" "),
      });
    }
  }
  return out;
}

/**
 * Fixed-size chunks of about `size` characters, cut at word boundaries, without overlap.
 * @param {{ id: string, title: string, text: string }[]} paragraphs
 * @param {number} [size]
 * @returns {Chunk[]}
 */
export function fixedChunks(paragraphs, size = 300) {
  const out = [];
  for (const p of paragraphs) {
    const words = p.text.split(/\s+/).filter(Boolean);
    let current = [];
    let length = 0;
    let n = 0;
    for (const w of words) {
      if (length + w.length + 1 > size && current.length > 0) {
        out.push({
          id: `${p.id}/c${n++}`,
          documentId: p.id,
          title: p.title,
          text: current.join(" "),
        });
        current = [];
        length = 0;
      }
      current.push(w);
      length += w.length + 1;
    }
    if (current.length > 0)
      out.push({ id: `${p.id}/c${n}`, documentId: p.id, title: p.title, text: current.join(" ") });
  }
  return out;
}
