import { describeValue } from "@fastrag/bench-core/internal";
import type { ColumnMapping } from "../records/column-mapping.js";
import { inFile, inputError, isPlainRecord, type Place } from "../records/problems.js";
import { type LoadedSamples, SampleBuilder } from "../records/sample-builder.js";
import { impossibleWithAnswers } from "../records/squad-v2.js";

/** True when a parsed JSON document has SQuAD's nested shape (`data[].paragraphs`). */
export function isSquad(document: unknown): document is { data: unknown[] } {
  if (!isPlainRecord(document) || !Array.isArray(document.data)) return false;
  const first = document.data[0];
  return document.data.length === 0 || (isPlainRecord(first) && "paragraphs" in first);
}

/** The stable id of a SQuAD paragraph: `<title>#<index within its article>`. */
function squadParagraphId(title: string, index: number): string {
  return `${title}#${index}`;
}

/** One paragraph of a SQuAD document, with its stable id. */
export interface SquadParagraph {
  readonly id: string;
  readonly title: string;
  readonly context: string;
  readonly qas: readonly unknown[];
  readonly where: string;
}

/** A place in a SQuAD file, its JSON path (`data[0].paragraphs[2].qas`) as the field. */
function inSquad(source: string, path: string): Place {
  return inFile(source, path, path);
}

/** Walks the articles and paragraphs of a SQuAD document, checking their shapes. */
export function squadParagraphs(document: { data: unknown[] }, source: string): SquadParagraph[] {
  const out: SquadParagraph[] = [];
  const titles = new Map<string, number>();
  for (let a = 0; a < document.data.length; a++) {
    const article = document.data[a];
    const where = `data[${a}]`;
    if (!isPlainRecord(article)) {
      throw inputError(
        inSquad(source, `${where}`),
        `expected an article object, found ${describeValue(article)}`,
      );
    }
    const title = article.title === undefined ? String(a) : article.title;
    if (typeof title !== "string" || title.length === 0) {
      throw inputError(
        inSquad(source, `${where}.title`),
        `expected a non-empty string, found ${describeValue(title)}`,
      );
    }
    // Paragraph ids are `<title>#<index>`: two articles of one title would share them, and the
    // judgments of one paragraph would count a retrieved paragraph of the other as relevant.
    const first = titles.get(title);
    if (first !== undefined) {
      throw inputError(
        inSquad(source, `${where}.title`),
        `${JSON.stringify(title)} is also the title of data[${first}]; paragraph ids are "<title>#<index>", so both articles' paragraphs would have the same ids. Give the articles distinct titles`,
      );
    }
    titles.set(title, a);
    if (!Array.isArray(article.paragraphs)) {
      throw inputError(
        inSquad(source, `${where}.paragraphs`),
        `expected an array of paragraphs, found ${describeValue(article.paragraphs)}`,
      );
    }
    for (let p = 0; p < article.paragraphs.length; p++) {
      const paragraph = article.paragraphs[p];
      const at = `${where}.paragraphs[${p}]`;
      if (!isPlainRecord(paragraph)) {
        throw inputError(
          inSquad(source, `${at}`),
          `expected a paragraph object, found ${describeValue(paragraph)}`,
        );
      }
      const context = paragraph.context === undefined ? "" : paragraph.context;
      if (typeof context !== "string") {
        throw inputError(
          inSquad(source, `${at}.context`),
          `expected a string, found ${describeValue(context)}`,
        );
      }
      const qas = paragraph.qas === undefined ? [] : paragraph.qas;
      if (!Array.isArray(qas)) {
        throw inputError(
          inSquad(source, `${at}.qas`),
          `expected an array of questions, found ${describeValue(qas)}`,
        );
      }
      out.push({ id: squadParagraphId(title, p), title, context, qas, where: at });
    }
  }
  return out;
}

/**
 * SQuAD v1/v2 nested format → samples. Each question becomes a sample with its `id`; its
 * `expected_answers` are its distinct answer texts, or `[""]` when it has none (an unanswerable
 * question, `is_impossible`), as the official evaluation script grades it. A question flagged
 * impossible that has answers keeps them, as the official script does, with a warning; `relevant_ids` names its paragraph
 * (`<title>#<index>`); `metadata` keeps `title` and `is_impossible`.
 */
export function samplesFromSquad(document: { data: unknown[] }, source: string): LoadedSamples {
  const mapping: ColumnMapping = {};
  const builder = new SampleBuilder(mapping, {
    source,
    path: source,
    unit: "record",
    ownsRecords: true,
  });
  let position = 0;
  let conflicts = 0;
  let firstConflict: { where: string; answers: string[] } | undefined;
  for (const paragraph of squadParagraphs(document, source)) {
    for (let q = 0; q < paragraph.qas.length; q++) {
      const qa = paragraph.qas[q];
      const label = `${paragraph.where}.qas[${q}]`;
      position++;
      if (!isPlainRecord(qa)) {
        throw inputError(
          inSquad(source, `${label}`),
          `expected a question object, found ${describeValue(qa)}`,
        );
      }
      const impossible = qa.is_impossible === true;
      const answers: string[] = [];
      if (qa.answers !== undefined) {
        if (!Array.isArray(qa.answers)) {
          throw inputError(
            inSquad(source, `${label}.answers`),
            `expected an array, found ${describeValue(qa.answers)}`,
          );
        }
        for (let k = 0; k < qa.answers.length; k++) {
          const answer = qa.answers[k];
          const text = isPlainRecord(answer) ? answer.text : undefined;
          if (typeof text !== "string") {
            throw inputError(
              inSquad(source, `${label}.answers[${k}].text`),
              `expected a string, found ${describeValue(text)}`,
            );
          }
          if (!answers.includes(text)) answers.push(text);
        }
      }
      if (answers.length === 0) answers.push("");
      else if (impossible) {
        // The official evaluation never reads is_impossible: it grades against the answers.
        conflicts++;
        firstConflict ??= { where: `${source}: ${label}`, answers: answers.slice() };
      }
      builder.addRecord(
        {
          id: qa.id,
          question: qa.question,
          expected_answers: answers,
          relevant_ids: [paragraph.id],
          metadata: { title: paragraph.title, is_impossible: impossible },
        },
        position,
        label,
      );
    }
  }
  const loaded = builder.result();
  if (firstConflict === undefined) return loaded;
  const warning = impossibleWithAnswers({
    where: firstConflict.where,
    flag: "is_impossible",
    field: "answers",
    answers: firstConflict.answers,
    more: conflicts - 1,
    units: conflicts === 2 ? "question" : "questions",
  });
  return { ...loaded, warnings: [...loaded.warnings, warning] };
}
