import { ConfigurationError, type EvalSample } from "@fastrag/bench-core";
import { feedFile, readTextFile } from "../io/files.js";
import { QrelsParser } from "./qrels-parser.js";
import { parseTopics, type TopicField } from "./topics.js";

/** Options of `QADataset.fromTrec`. */
export interface TrecDatasetOptions {
  /** Path of a TREC qrels file: `qid iter docno rel` per line. */
  readonly qrels: string;
  /**
   * Path of the topics: SGML (`<top><num> Number: 301 <title> …`) or `qid<TAB>text` lines. When
   * absent, each question is its query id.
   */
  readonly topics?: string;
  /** Which part of an SGML topic becomes the question. Default `"title"`. */
  readonly topicField?: TopicField;
  /**
   * The minimum grade that counts as relevant for binary measures (`relevantIds`), like
   * `trec_eval -l`. By default any grade > 0 is relevant. `relevance` always keeps every judged
   * grade, so graded measures (ndcg) are unaffected, as in trec_eval.
   */
  readonly relevanceLevel?: number;
  /**
   * Keeps only the queries for which this returns `true`: to evaluate a subset of topics, or to
   * split one evaluation across threads (`fastrag-bench eval` gives each thread the queries of
   * a hash of their id). It is called once per distinct query id, in order of first appearance,
   * before that query's judgments are read. The lines of a rejected query are read for their
   * query id only: their other fields are not checked. By default every query is kept.
   */
  readonly queries?: (queryId: string) => boolean;
}

// TREC samples have no gold answers: one shared, frozen empty list instead of 10^5 of them.
const NO_ANSWERS: readonly string[] = Object.freeze([]);

/**
 * The samples of TREC qrels (and topics): one per query, in order of first appearance. The
 * options are checked by the caller (`QADataset.fromTrec`); `level` and `keep` are its
 * `relevanceLevel` and `queries`.
 *
 * @throws ConfigurationError for a malformed qrels or topics line, or a query without a topic.
 */
export async function trecSamples(
  options: TrecDatasetOptions,
  level: number | undefined,
  keep: ((queryId: string) => boolean) | undefined,
): Promise<EvalSample[]> {
  const qrels = new QrelsParser(options.qrels, level, keep);
  await feedFile(options.qrels, qrels);
  const topics =
    options.topics === undefined
      ? undefined
      : parseTopics(await readTextFile(options.topics), options.topics, options.topicField);
  const { qids, relevance, relevantIds, firstLines } = qrels;
  const samples: EvalSample[] = new Array(qids.length);
  for (let q = 0; q < qids.length; q++) {
    const qid = qids[q] as string;
    let question = qid;
    if (topics !== undefined) {
      const text = topics.get(qid);
      if (text === undefined) {
        throw new ConfigurationError(
          `${options.topics}: no topic for query ${JSON.stringify(qid)}, which line ${firstLines[q]} of ${options.qrels} judges; ${topicsHint(qid, topics)}`,
          { kind: "invalid-input", path: options.topics },
        );
      }
      question = text;
    }
    samples[q] = {
      id: qid,
      question,
      expectedAnswers: NO_ANSWERS,
      relevantIds: relevantIds[q] as string[],
      relevance: relevance[q] as Record<string, number>,
    };
  }
  return samples;
}

/**
 * What the topics hold instead of `qid`, for the message of a missing topic. Old TREC topics
 * number `<num> Number: 051` while their qrels say `51`: ids are compared as text, as trec_eval
 * compares them, so say so when only leading zeros differ.
 */
function topicsHint(qid: string, topics: ReadonlyMap<string, string>): string {
  const bare = (id: string) => id.replace(/^0+(?=\d)/, "");
  const wanted = bare(qid);
  for (const id of topics.keys()) {
    if (bare(id) === wanted) {
      return `the topics have ${JSON.stringify(id)}: query ids are compared as text (as trec_eval compares them), so write them alike in both files (both zero-padded or neither)`;
    }
  }
  const shown = [...topics.keys()].slice(0, 3).map((id) => JSON.stringify(id));
  return topics.size === 0
    ? "the topics hold no topic"
    : `the topics hold ${topics.size} (${shown.join(", ")}${topics.size > 3 ? ", …" : ""})`;
}
