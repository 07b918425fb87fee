// Checking a judge reply against its step's JSON Schema: the subset the judge steps use.

import { describeValue } from "../describe-value.js";
import type { JsonSchema } from "../types.js";

/**
 * The first way `value` fails `schema`, as `"<path>: expected …, found …"`, or `undefined` when
 * it matches. The subset read: `type` (`object`, `array`, `string`, `number`, `integer`,
 * `boolean`, `null`, or a list of them), `properties`, `required`, `additionalProperties: false`,
 * `items`, `enum`, `minimum`, `maximum`, `minItems`, `maxItems`. Other keywords (`description`,
 * `title`) are ignored, as they constrain nothing.
 */
export function schemaProblem(
  value: unknown,
  schema: JsonSchema,
  path = "reply",
): string | undefined {
  const type = schema.type;
  if (type !== undefined) {
    const types = Array.isArray(type) ? (type as string[]) : [type as string];
    if (!types.some((t) => isType(value, t))) {
      return `${path}: expected ${types.join(" or ")}, found ${describeValue(value)}`;
    }
  }
  const allowed = schema.enum;
  if (Array.isArray(allowed) && !allowed.some((a) => a === value)) {
    return `${path}: expected one of ${allowed.map((a) => JSON.stringify(a)).join(", ")}, found ${describeValue(value)}`;
  }
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum) {
      return `${path}: expected at least ${schema.minimum}, found ${value}`;
    }
    if (typeof schema.maximum === "number" && value > schema.maximum) {
      return `${path}: expected at most ${schema.maximum}, found ${value}`;
    }
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === "number" && value.length < schema.minItems) {
      return `${path}: expected at least ${schema.minItems} items, found ${value.length}`;
    }
    if (typeof schema.maxItems === "number" && value.length > schema.maxItems) {
      return `${path}: expected at most ${schema.maxItems} items, found ${value.length}`;
    }
    const items = schema.items;
    if (typeof items === "object" && items !== null) {
      for (let i = 0; i < value.length; i++) {
        const problem = schemaProblem(value[i], items as JsonSchema, `${path}[${i}]`);
        if (problem !== undefined) return problem;
      }
    }
  } else if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>;
    const required = schema.required;
    if (Array.isArray(required)) {
      for (const key of required as string[]) {
        if (!Object.hasOwn(record, key) || record[key] === undefined) {
          return `${path}.${key}: missing`;
        }
      }
    }
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    for (const key of Object.keys(record)) {
      const sub = Object.hasOwn(properties, key) ? properties[key] : undefined;
      if (sub === undefined) {
        if (schema.additionalProperties === false) return `${path}.${key}: not expected`;
        continue;
      }
      const problem = schemaProblem(record[key], sub, `${path}.${key}`);
      if (problem !== undefined) return problem;
    }
  }
  return undefined;
}

function isType(value: unknown, type: string): boolean {
  switch (type) {
    case "object":
      return typeof value === "object" && value !== null && !Array.isArray(value);
    case "array":
      return Array.isArray(value);
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "null":
      return value === null;
    default:
      return false;
  }
}
