import type { Place } from "./problems.js";

/** How a loader renders a record's position for messages, and the line it is on when known. */
export type DescribePosition = (position: number) => {
  readonly text: string;
  readonly line?: number;
};

/**
 * Where a record sits in its source, as messages name it: `data.jsonl: line 7`,
 * `data.json: record 3 (samples[2])`, or whatever the loader's `describe` renders.
 */
export class RecordPositions {
  /** The file (or other source) named in messages. */
  readonly source: string;
  /** The kind of position: `line`, `record` or `row`. */
  readonly unit: "line" | "record" | "row";
  private readonly arrayName: string | undefined;
  private readonly describe: DescribePosition | undefined;
  private readonly path: string | undefined;

  /** `path`: the file the records come from, for the errors' fields (none for records in memory). */
  constructor(
    source: string,
    unit: "line" | "record" | "row",
    options: { arrayName?: string; describe?: DescribePosition; path?: string } = {},
  ) {
    this.source = source;
    this.unit = unit;
    this.arrayName = options.arrayName;
    this.describe = options.describe;
    this.path = options.path;
  }

  /** `source: <where>` for the record at `position` (1-based), or at `label` when given. */
  at(position: number, label?: string): string {
    return this.place(position, label).text;
  }

  /**
   * Where the record at `position` (or at `label`) is, and in `column` when given: the words of
   * {@link at} (`, column "<column>"` after them), and its path, line and column name as fields.
   */
  place(position: number, label?: string, column?: string): Place {
    let text: string;
    let line: number | undefined;
    if (label !== undefined) text = `${this.source}: ${label}`;
    else if (this.describe !== undefined) {
      const described = this.describe(position);
      text = `${this.source}: ${described.text}`;
      line = described.line;
    } else {
      const array = this.arrayName === undefined ? "" : ` (${this.arrayName}[${position - 1}])`;
      text = `${this.source}: ${this.unit} ${position}${array}`;
      if (this.unit === "line") line = position;
    }
    if (column !== undefined) text = `${text}, column "${column}"`;
    return {
      text,
      ...(this.path !== undefined ? { path: this.path } : {}),
      ...(line !== undefined ? { line } : {}),
      ...(column !== undefined ? { field: column } : {}),
    };
  }
}
