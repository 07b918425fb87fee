import { parquetMetadata, parquetRead, parquetSchema } from "hyparquet";
import { inputError, messageOf } from "./problems.js";

/** The top-level columns and rows (as arrays) of a Parquet file held in memory. */
export interface ParquetTable {
  readonly columns: string[];
  readonly rows: unknown[][];
}

/**
 * Decodes a whole Parquet file with hyparquet. Any decoding failure becomes a
 * ConfigurationError naming `source`.
 */
export async function readParquetTable(buffer: ArrayBuffer, source: string): Promise<ParquetTable> {
  try {
    const metadata = parquetMetadata(buffer);
    const columns = parquetSchema(metadata).children.map((child) => child.element.name);
    let rows: unknown[][] = [];
    await parquetRead({
      file: buffer,
      metadata,
      columns,
      rowFormat: "array",
      onComplete(data: unknown[][]) {
        rows = data;
      },
    });
    return { columns, rows };
  } catch (error) {
    throw inputError(source, `not a readable Parquet file: ${messageOf(error)}`, error);
  }
}
