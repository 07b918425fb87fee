import type {
  ConfigurationError,
  ConfigurationErrorFields,
} from "@fastrag/bench-core/internal/base";

/**
 * What `error` says for code (its kind, and the option, file, line, column and field at fault),
 * to carry onto the error a command throws in its place with its own advice added, so that
 * rewording a message never loses what it is. Its `cause` is for the caller to set.
 */
export function fieldsOf(error: ConfigurationError): ConfigurationErrorFields {
  const fields: {
    kind: ConfigurationErrorFields["kind"];
    option?: string;
    path?: string;
    line?: number;
    column?: number;
    field?: string;
  } = { kind: error.kind };
  if (error.option !== undefined) fields.option = error.option;
  if (error.path !== undefined) fields.path = error.path;
  if (error.line !== undefined) fields.line = error.line;
  if (error.column !== undefined) fields.column = error.column;
  if (error.field !== undefined) fields.field = error.field;
  return fields;
}
