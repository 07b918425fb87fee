import { setOwn } from "@fastrag/bench-core/internal";
import { isPlainRecord } from "./problems.js";

const hasOwn = Object.hasOwn;

/**
 * How deeply metadata may nest. Far beyond any real record, and well within what JSON.stringify
 * (which `save` and result files use) and the recursive walks over metadata can take: a file
 * nesting 10^5 arrays parses, but then overflows the stack with a RangeError.
 */
export const MAX_NESTING = 1000;

/** Thrown by {@link plainValue} for a value nested more than {@link MAX_NESTING} levels deep. */
export class TooDeep extends Error {}

/**
 * A value as the native (JSON) format can hold it: Parquet's INT64 cells arrive as BigInts, which
 * JSON cannot write; they become numbers when exact, else strings. Arrays and objects are
 * converted throughout; anything else is returned as is.
 *
 * @throws {TooDeep} for a value nested more than {@link MAX_NESTING} levels deep.
 */
export function plainValue(value: unknown, depth: number): unknown {
  if (depth > MAX_NESTING && typeof value === "object" && value !== null) throw new TooDeep();
  if (typeof value === "bigint") {
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(value)
      : String(value);
  }
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const v = plainValue(value[i], depth + 1);
      if (v !== value[i]) {
        out ??= value.slice();
        out[i] = v;
      }
    }
    return out ?? value;
  }
  if (isPlainRecord(value)) {
    let out: Record<string, unknown> | undefined;
    for (const key of Object.keys(value)) {
      const v = plainValue(value[key], depth + 1);
      if (v !== value[key]) {
        out ??= copyRecord(value);
        setOwn(out, key, v);
      }
    }
    return out ?? value;
  }
  return value;
}

/** A shallow copy of `source`'s own keys (`__proto__` kept as data); `{}` for `undefined`. */
export function copyRecord(source: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (source === undefined) return out;
  for (const key in source) if (hasOwn(source, key)) setOwn(out, key, source[key]);
  return out;
}
