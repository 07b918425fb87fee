import { firstInvalidUtf8 } from "@fastrag/bench-core/internal/base";
import { type FileMetaData, parquetMetadata, parquetRead, parquetSchema } from "hyparquet";
import { strictUtf8 } from "../io/utf8.js";
import { inputError, messageOf } from "../records/problems.js";

/** The top-level columns and rows (as arrays) of a Parquet file held in memory. */
export interface ParquetTable {
  readonly columns: string[];
  readonly rows: unknown[][];
}

/** A string value whose bytes are not UTF-8; thrown out of hyparquet, then located. */
class InvalidUtf8Cell extends Error {}

/**
 * hyparquet decodes strings with a lenient TextDecoder, which turns invalid bytes into U+FFFD
 * without a word; these parsers refuse them instead.
 */
const STRICT_PARSERS = {
  stringFromBytes(bytes: Uint8Array | undefined): string | undefined {
    if (bytes === undefined) return undefined;
    try {
      return strictUtf8.decode(bytes);
    } catch {
      throw new InvalidUtf8Cell("invalid UTF-8 in a string value");
    }
  },
  jsonFromBytes(bytes: Uint8Array | undefined): unknown {
    const text = STRICT_PARSERS.stringFromBytes(bytes);
    return text === undefined ? undefined : JSON.parse(text);
  },
};

/**
 * Decodes a whole Parquet file with hyparquet. Any decoding failure becomes a ConfigurationError
 * naming `source` and where: the byte of a missing magic number, the footer, or the column (and
 * row, for a string that is not UTF-8) whose data does not decode.
 */
export async function readParquetTable(buffer: ArrayBuffer, source: string): Promise<ParquetTable> {
  expectMagic(buffer, source);
  let metadata: FileMetaData;
  let columns: string[];
  try {
    metadata = parquetMetadata(buffer);
    columns = parquetSchema(metadata).children.map((child) => child.element.name);
  } catch (error) {
    const end = buffer.byteLength;
    throw inputError(
      `${source}: footer (its length at byte ${end - 8})`,
      `not a readable Parquet file: ${messageOf(error)}`,
      { path: source, cause: error },
    );
  }
  try {
    let rows: unknown[][] = [];
    await parquetRead({
      file: buffer,
      metadata,
      columns,
      rowFormat: "array",
      parsers: STRICT_PARSERS,
      onComplete(data: unknown[][]) {
        rows = data;
      },
    });
    return { columns, rows };
  } catch (error) {
    throw await locateReadError(buffer, metadata, columns, source, error);
  }
}

const MAGIC = [0x50, 0x41, 0x52, 0x31]; // "PAR1"

/** A Parquet file starts and ends with "PAR1"; say which end lacks it, and what is there. */
function expectMagic(buffer: ArrayBuffer, source: string): void {
  const bytes = new Uint8Array(buffer);
  const n = bytes.length;
  if (n < 12) {
    throw inputError(
      `${source}: byte ${n}`,
      `unexpected end of file: a Parquet file holds at least 12 bytes ("PAR1", a footer, "PAR1"), this one ${n}`,
      { path: source },
    );
  }
  for (const at of [0, n - 4]) {
    for (let i = 0; i < 4; i++) {
      if (bytes[at + i] === MAGIC[i]) continue;
      const found = JSON.stringify(Buffer.from(bytes.subarray(at, at + 4)).toString("latin1"));
      throw inputError(
        `${source}: byte ${at}`,
        at === 0
          ? `expected the Parquet magic "PAR1" that starts the file, found ${found}: not a Parquet file`
          : `expected the Parquet magic "PAR1" that ends the file, found ${found}: the file is truncated or not Parquet`,
        { path: source },
      );
    }
  }
}

/** What the lenient parser puts in place of a string that is not UTF-8. */
class InvalidBytes {
  constructor(readonly bytes: Uint8Array) {}
}

/**
 * Error path only: reads the columns one at a time to find the one whose data fails (and, for
 * invalid UTF-8, the first row holding it).
 */
async function locateReadError(
  buffer: ArrayBuffer,
  metadata: FileMetaData,
  columns: readonly string[],
  source: string,
  error: unknown,
): Promise<Error> {
  const lenient = {
    stringFromBytes(bytes: Uint8Array | undefined): string | InvalidBytes | undefined {
      if (bytes === undefined) return undefined;
      try {
        return strictUtf8.decode(bytes);
      } catch {
        return new InvalidBytes(bytes);
      }
    },
  };
  for (const column of columns) {
    let values: unknown[][] = [];
    try {
      await parquetRead({
        file: buffer,
        metadata,
        columns: [column],
        rowFormat: "array",
        parsers: lenient as unknown as typeof STRICT_PARSERS,
        onComplete(data: unknown[][]) {
          values = data;
        },
      });
    } catch (columnError) {
      return inputError(
        `${source}: column "${column}"`,
        `not readable Parquet data: ${messageOf(columnError)}`,
        { path: source, field: column, cause: columnError },
      );
    }
    for (let row = 0; row < values.length; row++) {
      const invalid = findInvalid(values[row]?.[0]);
      if (invalid !== undefined) {
        const at = firstInvalidUtf8(invalid.bytes);
        return inputError(
          `${source}: row ${row + 1}, column "${column}"`,
          `invalid UTF-8 at byte ${at + 1} of a string value (found 0x${(invalid.bytes[at] ?? 0).toString(16).padStart(2, "0")}); expected UTF-8 text`,
          { path: source, field: column, cause: error },
        );
      }
    }
  }
  return inputError(source, `not a readable Parquet file: ${messageOf(error)}`, {
    path: source,
    cause: error,
  });
}

function findInvalid(value: unknown, depth = 0): InvalidBytes | undefined {
  if (value instanceof InvalidBytes) return value;
  if (depth > 32 || typeof value !== "object" || value === null) return undefined;
  for (const item of Array.isArray(value) ? value : Object.values(value)) {
    const found = findInvalid(item, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}
