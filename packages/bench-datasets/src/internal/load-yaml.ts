import { parse, YAMLError } from "yaml";
import type { ColumnMapping } from "../column-mapping.js";
import { readTextFile } from "./files.js";
import { samplesFromDocument } from "./load-json.js";
import { inputError, messageOf } from "./problems.js";
import type { LoadedSamples } from "./sample-builder.js";

/**
 * Reads a `.yaml`/`.yml` dataset: a list of records, or `{samples: [...]}`. Parsed with the
 * `yaml` package's YAML 1.2 core schema: no custom tags are executed, and alias expansion is
 * capped (a "billion laughs" file is an error, not a hang).
 */
export async function loadYamlDataset(
  path: string,
  mapping: ColumnMapping | undefined,
): Promise<LoadedSamples> {
  const text = await readTextFile(path);
  let document: unknown;
  try {
    document = parse(text, { maxAliasCount: 1000, uniqueKeys: true, strict: true });
  } catch (error) {
    const position = error instanceof YAMLError ? error.linePos?.[0] : undefined;
    const where =
      position === undefined ? path : `${path}: line ${position.line}, column ${position.col}`;
    throw inputError(where, `invalid YAML: ${firstLine(messageOf(error))}`, error);
  }
  return samplesFromDocument(document ?? null, mapping, path);
}

function firstLine(message: string): string {
  const newline = message.indexOf("\n");
  return newline === -1 ? message : message.slice(0, newline);
}
