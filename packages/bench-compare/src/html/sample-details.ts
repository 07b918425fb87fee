import type { SampleResult } from "@fastrag/bench-core";
import { clip, escapeHtml } from "./escape.js";

// What the per-sample diff shows of the sample itself, beside the question: its gold answers,
// relevant ids (with grades when the qrels were graded) and metadata, as the result keeps them
// (format 2). Ids are shown whole and wrap; long answers and metadata values are clipped.

/** Gold answers, relevant ids and metadata entries listed per sample; the rest are counted. */
const ITEMS_SHOWN = 10;
/** Characters of one gold answer or metadata value. */
const VALUE_SHOWN = 200;

/**
 * The sample's gold answers, relevant ids and metadata as a small definition list (HTML, every
 * piece of text escaped); "" when the result kept none of them (a result written before format 2,
 * or a dataset without them).
 */
export function sampleDetails(s: SampleResult): string {
  const parts: string[] = [];
  const answers = s.expectedAnswers ?? [];
  if (answers.length > 0) {
    const shown = answers
      .slice(0, ITEMS_SHOWN)
      .map((a) =>
        a.trim() === ""
          ? '<li class="more">(no answer)</li>'
          : `<li>“${escapeHtml(clip(a, VALUE_SHOWN))}”</li>`,
      );
    parts.push(`<dt>gold</dt><dd><ul>${shown.join("")}${moreItem(answers.length)}</ul></dd>`);
  }
  const relevant = s.relevantIds ?? [];
  if (relevant.length > 0) {
    const grades = s.relevance;
    const shown = relevant.slice(0, ITEMS_SHOWN).map((id) => {
      const grade = grades !== undefined && Object.hasOwn(grades, id) ? grades[id] : undefined;
      return `<li>${escapeHtml(id)}${grade !== undefined && grade !== 1 ? ` <span class="more">(${grade})</span>` : ""}</li>`;
    });
    parts.push(
      `<dt>relevant</dt><dd><ul class="ids-whole">${shown.join("")}${moreItem(relevant.length)}</ul></dd>`,
    );
  }
  const metadata = s.metadata;
  if (metadata !== undefined) {
    const keys = Object.keys(metadata);
    if (keys.length > 0) {
      const shown = keys
        .slice(0, ITEMS_SHOWN)
        .map(
          (k) =>
            `<li><span class="mk">${escapeHtml(k)}</span> ${escapeHtml(clip(metadataText(metadata[k]), VALUE_SHOWN))}</li>`,
        );
      parts.push(`<dt>metadata</dt><dd><ul>${shown.join("")}${moreItem(keys.length)}</ul></dd>`);
    }
  }
  return parts.length === 0 ? "" : `<dl class="gold">${parts.join("")}</dl>`;
}

/** A metadata value as text: a string as itself, anything else as JSON. */
export function metadataText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined) return "undefined";
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function moreItem(n: number): string {
  return n > ITEMS_SHOWN ? `<li class="more">+${n - ITEMS_SHOWN} more</li>` : "";
}
