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
  private readonly describe: ((position: number) => string) | undefined;

  constructor(
    source: string,
    unit: "line" | "record" | "row",
    arrayName: string | undefined,
    describe: ((position: number) => string) | undefined,
  ) {
    this.source = source;
    this.unit = unit;
    this.arrayName = arrayName;
    this.describe = describe;
  }

  /** `source: <where>` for the record at `position` (1-based), or at `label` when given. */
  at(position: number, label?: string): string {
    if (label !== undefined) return `${this.source}: ${label}`;
    if (this.describe !== undefined) return `${this.source}: ${this.describe(position)}`;
    const array = this.arrayName === undefined ? "" : ` (${this.arrayName}[${position - 1}])`;
    return `${this.source}: ${this.unit} ${position}${array}`;
  }
}
