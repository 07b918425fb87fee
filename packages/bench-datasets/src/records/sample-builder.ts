import type { EvalSample } from "@fastrag/bench-core";
import { describeValue, setOwn } from "@fastrag/bench-core/internal";
import { CellValues } from "./cell-values.js";
import { goldColumnWarnings, PassageTextProbe } from "./column-hints.js";
import type { ColumnMapping } from "./column-mapping.js";
import { ColumnResolver } from "./column-resolver.js";
import { IdSet } from "./id-set.js";
import { copyRecord } from "./plain-value.js";
import { inputError, isPlainRecord } from "./problems.js";
import type { RawRecord } from "./raw-record.js";
import { type DescribePosition, RecordPositions } from "./record-positions.js";
import { IS_IMPOSSIBLE, UnanswerableQuestions } from "./squad-v2.js";

const hasOwn = Object.hasOwn;

/** What a loader produced: samples in file order and the warnings worth printing. */
export interface LoadedSamples {
  readonly samples: EvalSample[];
  readonly warnings: string[];
}

export interface BuilderOptions {
  /** The file (or other source) named in messages. */
  readonly source: string;
  /** The file the records come from, for the errors' `path` (none for records in memory). */
  readonly path?: string;
  /** Renders a record position for messages, e.g. `line 7` or `record 3`. */
  readonly unit: "line" | "record" | "row";
  /** CSV cells are strings: parse cells holding a JSON array/object where a list/object is expected. */
  readonly cellsAreText?: boolean;
  /** For `unit: "record"`: the array the records come from, shown as `record 3 (samples[2])`. */
  readonly arrayName?: string;
  /**
   * The records were parsed by the loader, so nobody else holds their arrays: lists of strings
   * can be kept as they are instead of copied.
   */
  readonly ownsRecords?: boolean;
  /** Renders a position for messages (called only when there is an error to report). */
  readonly describe?: DescribePosition;
}

/**
 * Turns records (objects or table rows) into validated samples, one instance per loaded file:
 * the columns are resolved by {@link ColumnResolver}, each value read by {@link CellValues},
 * SQuAD v2's unanswerable questions by {@link UnanswerableQuestions}; here ids are checked for
 * duplicates, extra columns kept as metadata, and the samples built.
 */
export class SampleBuilder {
  readonly samples: EvalSample[] = [];
  readonly warnings: string[] = [];
  private readonly positions: RecordPositions;
  private readonly columns: ColumnResolver;
  private readonly cells: CellValues;
  private readonly cellsAreText: boolean;
  private readonly unanswerable = new UnanswerableQuestions();
  private readonly passageText = new PassageTextProbe();
  private readonly ids = new IdSet();
  private readonly raw: RawRecord = {
    id: undefined,
    question: undefined,
    answers: undefined,
    relevantIds: undefined,
    relevance: undefined,
    metadata: undefined,
    impossible: undefined,
    position: 0,
    label: undefined,
  };

  constructor(mapping: ColumnMapping | undefined, options: BuilderOptions) {
    this.positions = new RecordPositions(options.source, options.unit, options);
    this.columns = new ColumnResolver(mapping, this.positions);
    this.cellsAreText = options.cellsAreText === true;
    this.cells = new CellValues(
      this.positions,
      this.columns.columnOf,
      this.warnings,
      this.cellsAreText,
      options.ownsRecords === true,
    );
  }

  /** Adds one object record. `position` is its line, record or row number (1-based). */
  addRecord(record: unknown, position: number, label?: string): void {
    if (!isPlainRecord(record)) {
      throw inputError(
        this.positions.place(position, label),
        `expected a record (an object of columns), found ${describeValue(record)}`,
      );
    }
    const columns = this.columns;
    const extras = columns.extrasOf(record, position, label);
    const questionColumn = columns.questionColumn(record, position, label);
    let metadata: Record<string, unknown> | undefined;
    const metaColumn = columns.columnOf.get("metadata");
    if (metaColumn !== undefined) {
      metadata = this.cells.metadataOf(record[metaColumn], position, label);
    }
    if (extras !== undefined) {
      metadata = copyRecord(metadata);
      for (let i = 0; i < extras.length; i++) {
        const key = extras[i]!;
        this.keepExtra(
          metadata,
          key,
          this.cells.plain(record[key], key, position, label),
          position,
          label,
        );
      }
    }
    const raw = this.raw;
    raw.id = columns.valueOf(record, "id");
    raw.question = record[questionColumn];
    raw.answers = columns.valueOf(record, "expectedAnswers");
    raw.relevantIds = columns.valueOf(record, "relevantIds");
    raw.relevance = columns.valueOf(record, "relevance");
    raw.metadata = metadata;
    // Only when the column is not read as a field (then it is an extra, kept in metadata).
    raw.impossible =
      !columns.readsColumn(IS_IMPOSSIBLE) && hasOwn(record, IS_IMPOSSIBLE)
        ? record[IS_IMPOSSIBLE]
        : undefined;
    raw.position = position;
    raw.label = label;
    this.finish(raw);
  }

  /** Declares the columns of a table before its rows are added with {@link addRow}. */
  setHeader(header: readonly string[], label = "header"): void {
    this.columns.setHeader(header, label);
  }

  /** Adds one table row; cells align with the header given to {@link setHeader}. */
  addRow(cells: readonly unknown[], position: number): void {
    const columns = this.columns;
    const header = columns.header;
    if (header === undefined) throw new Error("setHeader must be called before addRow");
    if (cells.length !== header.length) {
      throw inputError(
        this.positions.place(position),
        `expected ${header.length} cells (one per header column), found ${cells.length}`,
      );
    }
    const index = columns.headerIndex;
    let metadata: Record<string, unknown> | undefined;
    const metaAt = index[5]!;
    if (metaAt >= 0) metadata = this.cells.metadataOf(cells[metaAt], position);
    const extras = columns.extraIndexes;
    if (extras.length > 0) {
      metadata = copyRecord(metadata);
      for (let i = 0; i < extras.length; i++) {
        const at = extras[i]!;
        const key = header[at]!;
        const cell = cells[at];
        this.keepExtra(
          metadata,
          key,
          this.cellsAreText ? cell : this.cells.plain(cell, key, position),
          position,
        );
      }
    }
    const idAt = index[0]!;
    const answersAt = index[2]!;
    const idsAt = index[3]!;
    const relevanceAt = index[4]!;
    const impossibleAt = columns.impossibleAt;
    const raw = this.raw;
    raw.id = idAt >= 0 ? cells[idAt] : undefined;
    raw.question = cells[index[1]!];
    raw.answers = answersAt >= 0 ? cells[answersAt] : undefined;
    raw.relevantIds = idsAt >= 0 ? cells[idsAt] : undefined;
    raw.relevance = relevanceAt >= 0 ? cells[relevanceAt] : undefined;
    raw.metadata = metadata;
    raw.impossible = impossibleAt >= 0 ? cells[impossibleAt] : undefined;
    raw.position = position;
    raw.label = undefined;
    this.finish(raw);
  }

  /**
   * Keeps an extra column in `metadata` under its own name. The metadata column may already hold
   * that key: with the same value, fine; with another, one of the two would be lost, so refuse.
   */
  private keepExtra(
    metadata: Record<string, unknown>,
    key: string,
    value: unknown,
    position: number,
    label?: string,
  ): void {
    if (!hasOwn(metadata, key)) {
      setOwn(metadata, key, value);
      return;
    }
    // Own property: `metadata["__proto__"]` would read the prototype.
    const held = Object.getOwnPropertyDescriptor(metadata, key)?.value;
    if (held === value || JSON.stringify(held) === JSON.stringify(value)) return;
    throw inputError(
      this.positions.place(position, label, key),
      `the ${this.columns.columnOf.get("metadata")} column also has a key "${key}", with another value (${describeValue(held)} vs ${describeValue(value)}); rename the column, or drop one of the two, so that neither is lost`,
    );
  }

  /** Reads one record's values into a sample, checks its id is new, and keeps it. */
  private finish(raw: RawRecord): void {
    const { metadata, position, label } = raw;
    const cells = this.cells;
    const id = cells.idOf(raw.id, position, label);
    const question = cells.questionOf(raw.question, position, label);
    let expectedAnswers = cells.listOf(raw.answers, "expectedAnswers", position, label);
    // SQuAD v2 reads only empty answers, or answers beside an `is_impossible` flag.
    if (expectedAnswers.length === 0 || raw.impossible !== undefined) {
      expectedAnswers = this.unanswerable.answersOf(
        expectedAnswers,
        raw,
        this.columns.columnOf.get("expectedAnswers"),
        this.positions,
      );
    }
    const rawIds = raw.relevantIds;
    let relevantIds = cells.listOf(rawIds, "relevantIds", position, label);
    const relevance = cells.relevanceOf(raw.relevance, position, label);
    // Derived only when no relevant ids are given at all: an explicit empty list stays empty (a
    // saved `fromTrec` dataset whose relevanceLevel no document reaches must load back as it was).
    if (relevance !== undefined && (rawIds === undefined || rawIds === null || rawIds === "")) {
      const derived: string[] = [];
      for (const key in relevance) if ((relevance[key] as number) > 0) derived.push(key);
      relevantIds = derived;
    }
    this.passageText.inspect(relevantIds);
    if (id !== undefined) {
      if (!this.ids.add(id)) {
        let earlier = 0;
        while (this.samples[earlier]?.id !== id) earlier++;
        throw inputError(
          { ...this.positions.place(position, label), field: this.columns.columnOf.get("id") },
          `duplicate sample id ${JSON.stringify(id)} (also sample ${earlier + 1}); ids must be unique`,
        );
      }
    }
    // Built as literals of their final shape: adding properties later costs a second allocation
    // per sample, which shows at a million rows.
    let sample: EvalSample;
    if (relevance !== undefined) {
      if (id !== undefined) {
        sample =
          metadata === undefined
            ? { id, question, expectedAnswers, relevantIds, relevance }
            : { id, question, expectedAnswers, relevantIds, relevance, metadata };
      } else {
        sample =
          metadata === undefined
            ? { question, expectedAnswers, relevantIds, relevance }
            : { question, expectedAnswers, relevantIds, relevance, metadata };
      }
    } else if (id !== undefined) {
      sample =
        metadata === undefined
          ? { id, question, expectedAnswers, relevantIds }
          : { id, question, expectedAnswers, relevantIds, metadata };
    } else {
      sample =
        metadata === undefined
          ? { question, expectedAnswers, relevantIds }
          : { question, expectedAnswers, relevantIds, metadata };
    }
    this.samples.push(sample);
  }

  /** The samples, with the file-wide warnings (unanswerable rows with answers, passage text…). */
  result(): LoadedSamples {
    const warnings = this.warnings;
    const unanswerable = this.unanswerable.warning(this.positions.unit);
    if (unanswerable !== undefined) warnings.push(unanswerable);
    const columnOf = this.columns.columnOf;
    const passageText = this.passageText.warning(
      this.positions.source,
      columnOf.get("relevantIds"),
    );
    if (passageText !== undefined) warnings.push(passageText);
    warnings.push(
      ...goldColumnWarnings(
        this.positions.source,
        this.samples.length,
        this.columns.explicit,
        columnOf,
        this.columns.extraColumns(),
      ),
    );
    return { samples: this.samples, warnings };
  }
}
