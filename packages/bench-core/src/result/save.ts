// Saving a result: one atomic write, samples streamed one per line.
import { ConfigurationError } from "../errors.js";
import { writeFileAtomic } from "../internal/atomic-write.js";
import type { SampleResult } from "../types.js";
import { headerOf, sampleToJson } from "./encode-result.js";
import type { ResultData } from "./result-init.js";

/** See `BenchmarkResult.save`. */
export async function saveResult(result: ResultData, path: string): Promise<void> {
  const header = stringifyOrThrow(headerOf(result), path, "", 1);
  const samples = result.samples;
  await writeFileAtomic(path, function* () {
    // The header without its closing brace, then `"samples": [` and one sample per line.
    yield `${header.slice(0, -2)},\n "samples": [\n`;
    const batch: string[] = [];
    for (let i = 0; i < samples.length; i++) {
      batch.push(stringifyOrThrow(sampleToJson(samples[i] as SampleResult), path, `samples[${i}]`));
      if (batch.length === 1000) {
        yield `${batch.join(",\n")}${i + 1 < samples.length ? ",\n" : "\n"}`;
        batch.length = 0;
      }
    }
    if (batch.length > 0) yield `${batch.join(",\n")}\n`;
    yield "]}\n";
  });
}

/**
 * `JSON.stringify`, with its TypeError (a cycle, a BigInt) turned into a ConfigurationError that
 * names the field of `value` that cannot be written (`where` names `value` itself).
 */
function stringifyOrThrow(value: object, path: string, where: string, indent?: number): string {
  try {
    return JSON.stringify(value, null, indent);
  } catch (error) {
    const found = unwritableField(value, where, []);
    const field = found || "the result";
    const reason = String((error as Error)?.message ?? error).split("\n")[0];
    throw new ConfigurationError(
      `${path}: cannot save the result: ${field} cannot be written as JSON (${reason}); results hold plain data only`,
      { kind: "invalid-input", path, ...(found === "" ? {} : { field: found }), cause: error },
    );
  }
}

/**
 * The path of the first value inside `value` that JSON.stringify refuses: where a cycle closes,
 * or the BigInt itself. Only walked after a failure, so its cost never touches a good save.
 */
function unwritableField(value: unknown, where: string, ancestors: object[]): string {
  if (typeof value !== "object" || value === null) return where;
  if (ancestors.includes(value)) return where;
  ancestors.push(value);
  for (const key of Object.keys(value)) {
    const child = (value as Record<string, unknown>)[key];
    try {
      JSON.stringify(child);
    } catch {
      const name = Array.isArray(value)
        ? `${where}[${key}]`
        : /^[A-Za-z_$][\w$]*$/.test(key)
          ? `${where}${where === "" ? "" : "."}${key}`
          : `${where}[${JSON.stringify(key)}]`;
      return unwritableField(child, name, ancestors);
    }
  }
  ancestors.pop();
  return where;
}
