import { ConfigurationError } from "@fastrag/bench-core";
import { describeValue } from "@fastrag/bench-core/internal";

/**
 * Checks that `value` is a LangChain object with `invoke` (a retriever, a Runnable): the
 * adapters' argument. `expected` says what was expected, for the message; `option` names the
 * argument.
 *
 * @throws ConfigurationError (`invalid-option`) for anything else.
 */
export function expectInvokable(
  where: string,
  value: unknown,
  expected: string,
  option: string,
): void {
  if (
    typeof value !== "object" ||
    value === null ||
    typeof (value as { invoke?: unknown }).invoke !== "function"
  ) {
    throw new ConfigurationError(`${where}: expected ${expected}, found ${describeValue(value)}`, {
      kind: "invalid-option",
      option,
    });
  }
}
