import { readFileBytes } from "../io/files.js";
import type { ColumnMapping } from "../records/column-mapping.js";
import { inputError } from "../records/problems.js";
import { type LoadedSamples, SampleBuilder } from "../records/sample-builder.js";
import { readParquetTable } from "./parquet.js";

/** Reads a `.parquet` dataset with hyparquet: one sample per row, columns by name. */
export async function loadParquetDataset(
  path: string,
  mapping: ColumnMapping | undefined,
): Promise<LoadedSamples> {
  const bytes = await readFileBytes(path);
  const buffer = bytes.buffer.slice(
    bytes.byteOffset,
    bytes.byteOffset + bytes.byteLength,
  ) as ArrayBuffer;
  return samplesFromParquet([{ buffer, source: path }], mapping, path);
}

/** Samples from one or more Parquet files with the same columns (the shards of one split). */
export async function samplesFromParquet(
  files: readonly { buffer: ArrayBuffer; source: string }[],
  mapping: ColumnMapping | undefined,
  source: string,
): Promise<LoadedSamples> {
  const builder = new SampleBuilder(mapping, {
    source,
    path: source,
    unit: "row",
    ownsRecords: true,
  });
  let row = 0;
  let header: string[] | undefined;
  for (const file of files) {
    const table = await readParquetTable(file.buffer, file.source);
    if (header === undefined) {
      header = table.columns;
      builder.setHeader(header);
    } else if (table.columns.join("\u0000") !== header.join("\u0000")) {
      throw inputError(
        file.source,
        `columns ${table.columns.join(", ")} differ from the first file's ${header.join(", ")}`,
        { path: file.source },
      );
    }
    for (let i = 0; i < table.rows.length; i++) builder.addRow(table.rows[i]!, ++row);
  }
  return builder.result();
}
