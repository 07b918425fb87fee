import { describeValue } from "../describe-value.js";
import { ConfigurationError } from "../errors.js";

function fail(source: string, where: string, expected: string, value: unknown): never {
  throw new ConfigurationError(
    `${source}: ${where}: expected ${expected}, found ${describeValue(value)}`,
    { kind: "invalid-input", path: source, field: where },
  );
}

export function expectObject(
  value: unknown,
  source: string,
  where: string,
): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    fail(source, where, "an object", value);
  return value as Record<string, unknown>;
}

export function expectArray(value: unknown, source: string, where: string): unknown[] {
  if (!Array.isArray(value)) fail(source, where, "an array", value);
  return value;
}

export function expectString(value: unknown, source: string, where: string): string {
  if (typeof value !== "string") fail(source, where, "a string", value);
  return value;
}

export function expectStringOrNull(value: unknown, source: string, where: string): string | null {
  if (value !== null && typeof value !== "string") fail(source, where, "a string or null", value);
  return value;
}

export function expectBoolean(value: unknown, source: string, where: string): boolean {
  if (typeof value !== "boolean") fail(source, where, "true or false", value);
  return value;
}

export function expectFiniteOrNull(value: unknown, source: string, where: string): number | null {
  if (value === null) return null;
  if (typeof value !== "number" || !Number.isFinite(value))
    fail(source, where, "a finite number or null", value);
  return value;
}

export function expectNonNegativeInt(value: unknown, source: string, where: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    fail(source, where, "a non-negative integer", value);
  }
  return value;
}

/**
 * Sets an own data property, even for the key `__proto__`: plain assignment would replace the
 * object's prototype instead of storing data.
 */
export function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else {
    target[key] = value;
  }
}
