/**
 * Own-property access to records keyed by metric names. A metric may be named `toString`,
 * `constructor` or `__proto__`: a plain `record[name]` or `name in record` would find
 * `Object.prototype`'s members for a run that lacks the metric, and `record[name] = v` with
 * `__proto__` would replace the prototype instead of storing a value.
 */

/** Whether `record` has `key` as its own property. */
export function hasOwn(record: object, key: string): boolean {
  return Object.hasOwn(record, key);
}

/** `record[key]` when it is an own property, else `undefined` (never an inherited member). */
export function own<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

// Stores `value` under `key` as an own data property, `__proto__` included (one implementation, in core).
export { setOwn } from "@fastrag/bench-core/internal";
