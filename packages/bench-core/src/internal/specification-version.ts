// The check every versioned contract (Metric, targets, ResponseCache, JudgeFunction) gets from
// the code that receives an implementation of it: "v1" or no version runs, a later one is refused
// up front, since it would be called the wrong way.
import { describeValue } from "../describe-value.js";
import { ConfigurationError, type ConfigurationErrorKind } from "../errors.js";

/** Where a contract's version is checked, for the refusal's message and fields. */
export interface VersionedContract {
  /** Who is refusing, and what: `Benchmark: metric "recall@5"`, `Benchmark.run: the target`. */
  readonly where: string;
  /** The contract's implementations, plural: `metrics`, `targets`, `response caches`, `judges`. */
  readonly contract: string;
  readonly kind: ConfigurationErrorKind;
  /** The option that holds the implementation, when one does. */
  readonly option?: string;
}

/**
 * Passes `undefined` and `"v1"`, the only version of each contract this core runs.
 *
 * @throws {ConfigurationError} for any other value, with `field` `specificationVersion`.
 */
export function expectSpecificationVersion(version: unknown, contract: VersionedContract): void {
  if (version === undefined || version === "v1") return;
  throw new ConfigurationError(
    `${contract.where}: specificationVersion is ${describeValue(version)}; this version of @fastrag/bench-core runs "v1" ${contract.contract} (or unversioned ones): upgrade @fastrag/bench-core`,
    {
      kind: contract.kind,
      ...(contract.option === undefined ? {} : { option: contract.option }),
      field: "specificationVersion",
    },
  );
}
