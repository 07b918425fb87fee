import { forEachLine, isBlank } from "../io/lines.js";
import type { ColumnMapping } from "../records/column-mapping.js";
import { type LoadedSamples, SampleBuilder } from "../records/sample-builder.js";
import { parseJson } from "./json-text.js";

/**
 * Reads a `.jsonl` dataset streaming: one record per line; blank lines are skipped. Positions in
 * messages are physical line numbers.
 */
export async function loadJsonlDataset(
  path: string,
  mapping: ColumnMapping | undefined,
): Promise<LoadedSamples> {
  const builder = new SampleBuilder(mapping, {
    source: path,
    path,
    unit: "line",
    ownsRecords: true,
  });
  await forEachLine(path, (line, lineNumber) => {
    if (isBlank(line)) return;
    builder.addRecord(parseJson(line, path, lineNumber), lineNumber);
  });
  return builder.result();
}
