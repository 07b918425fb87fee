// Merging the results of a sharded run into the result of the whole dataset.

import { describeValue } from "../describe-value.js";
import { ConfigurationError } from "../errors.js";
import { fingerprintShard } from "../internal/fingerprint.js";
import type { SampleResult } from "../types.js";
import type {
  BenchmarkResultInit,
  DatasetInfo,
  ResultData,
  ResultShard,
  ShardSpec,
} from "./result-init.js";

/** See `BenchmarkResult.merge`: the merged result's init, from the shards' data. */
export function mergeResults(shards: readonly ResultData[]): BenchmarkResultInit {
  expectShardList(shards);
  const first = shards[0] as ResultData;
  for (const s of shards) expectShardOf(first, s);
  const byIndex = shardsByIndex(shards);
  // Shards made from different configs are two pipelines, not one run.
  for (const s of shards) {
    const a = first.provenance?.configHash;
    const b = s.provenance?.configHash;
    if (a !== undefined && b !== undefined && a !== b) {
      throw new ConfigurationError(
        `merge: shards of "${first.name}" were run from different configs (config_hash ${a} and ${b})`,
        { kind: "invalid-input", field: "config_hash" },
      );
    }
  }
  let createdAt = first.createdAt;
  let durationS = 0;
  for (const s of shards) {
    if (s.createdAt < createdAt) createdAt = s.createdAt;
    durationS = Math.max(durationS, s.durationS);
  }
  return {
    name: first.name,
    createdAt,
    durationS,
    samples: interleaved(
      byIndex,
      (first.shard as ShardSpec).count,
      (first.dataset as DatasetInfo).size,
    ),
    higherIsBetter: first.higherIsBetter,
    dataset: first.dataset,
    // Chunk text is in the merged file only where every shard kept it.
    keepChunkText: shards.every((s) => s.keepChunkText),
    ...(first.provenance !== undefined ? { provenance: first.provenance } : {}),
    ...((first.trials ?? 1) > 1 ? { trials: first.trials } : {}),
  };
}

/** A non-empty array of results (duck-typed, not instanceof: another copy's results merge too). */
function expectShardList(shards: readonly ResultData[]): void {
  if (!Array.isArray(shards)) {
    throw new ConfigurationError(
      `merge: expected an array of results, found ${describeValue(shards)}`,
      { kind: "invalid-option" },
    );
  }
  for (const [i, s] of shards.entries()) {
    const r = s as Partial<ResultData> | null;
    if (
      typeof r !== "object" ||
      r === null ||
      typeof r.name !== "string" ||
      !Array.isArray(r.metrics)
    ) {
      throw new ConfigurationError(
        `merge: shards[${i}] is ${describeValue(s)}, expected a BenchmarkResult (from run() or load())`,
        { kind: "invalid-option" },
      );
    }
  }
  if (shards.length === 0)
    throw new ConfigurationError("merge: expected at least one shard, found none", {
      kind: "invalid-option",
    });
}

/** `s` is a shard of the same run as `first`: name, metrics and directions, dataset, trials, cut. */
function expectShardOf(first: ResultData, s: ResultData): void {
  const metrics = first.metrics.join(",");
  if (s.name !== first.name) {
    throw new ConfigurationError(
      `merge: shards belong to different runs: "${first.name}" and "${s.name}"; merge each run's shards on their own (e.g. the files <name>.shard-*-of-N.json of one name)`,
      { kind: "invalid-input", field: "name" },
    );
  }
  if (s.metrics.join(",") !== metrics) {
    throw new ConfigurationError(
      `merge: shards of "${first.name}" have different metrics: [${first.metrics.join(", ")}] and [${s.metrics.join(", ")}]`,
      { kind: "invalid-input", field: "higher_is_better" },
    );
  }
  for (const m of first.metrics) {
    // Same names, same keys: both directions are own properties.
    const a = first.higherIsBetter[m];
    const b = s.higherIsBetter[m];
    if (a !== b) {
      throw new ConfigurationError(
        `merge: shards of "${first.name}" disagree on the direction of "${m}" (${a ? "higher" : "lower"} is better in one, ${b ? "higher" : "lower"} in another); were they scored by different versions of the metric?`,
        { kind: "invalid-input", field: "higher_is_better" },
      );
    }
  }
  if (s.dataset === undefined || s.shard === undefined) {
    throw new ConfigurationError(
      `merge: a result of "${s.name}" is not a shard (it has no shard or dataset fingerprint); run with { shard: { index, count } }`,
      { kind: "invalid-input", field: "shard" },
    );
  }
  if (
    s.dataset.fingerprint !== first.dataset?.fingerprint ||
    s.dataset.size !== first.dataset?.size
  ) {
    throw new ConfigurationError(
      `merge: shards of "${first.name}" ran on different datasets (fingerprints ${first.dataset?.fingerprint} and ${s.dataset.fingerprint})`,
      { kind: "invalid-input", field: "dataset" },
    );
  }
  // Trials are part of what a sample's scores mean: a mean of 5 is not a mean of 1.
  if ((s.trials ?? 1) !== (first.trials ?? 1)) {
    throw new ConfigurationError(
      `merge: shards of "${first.name}" ran different numbers of trials per sample (${first.trials ?? 1} and ${s.trials ?? 1})`,
      { kind: "invalid-input", field: "trials" },
    );
  }
  if (s.shard.count !== first.shard?.count) {
    throw new ConfigurationError(
      `merge: shards of "${first.name}" were cut differently (shard counts ${first.shard?.count} and ${s.shard.count})`,
      { kind: "invalid-input", field: "shard" },
    );
  }
}

/**
 * The shards by index, each the size its index gives it in the dataset (a shard that did not
 * finish is refused) and holding the samples its run recorded; every index once.
 */
function shardsByIndex(shards: readonly ResultData[]): Map<number, ResultData> {
  const first = shards[0] as ResultData;
  const count = (first.shard as ShardSpec).count;
  const size = (first.dataset as DatasetInfo).size;
  const byIndex = new Map<number, ResultData>();
  for (const s of shards) {
    const index = (s.shard as ShardSpec).index;
    if (byIndex.has(index)) {
      throw new ConfigurationError(
        `merge: shard ${index + 1}/${count} appears twice; shards must be disjoint`,
        { kind: "invalid-input", field: "shard" },
      );
    }
    const expected = shardSize(size, index, count);
    if (s.samples.length !== expected) {
      throw new ConfigurationError(
        `merge: shard ${index + 1}/${count} holds ${s.samples.length} samples, expected ${expected}; it did not finish`,
        { kind: "invalid-input", field: "samples" },
      );
    }
    expectShardSamples(s, index, count);
    byIndex.set(index, s);
  }
  const missing: string[] = [];
  for (let i = 0; i < count; i++) if (!byIndex.has(i)) missing.push(`${i + 1}/${count}`);
  if (missing.length > 0) {
    throw new ConfigurationError(`merge: incomplete; missing shard(s) ${missing.join(", ")}`, {
      kind: "invalid-input",
      field: "shard",
    });
  }
  return byIndex;
}

/** The shards' samples in dataset order: shard `index`'s j-th sample is sample j·count + index. */
function interleaved(
  byIndex: ReadonlyMap<number, ResultData>,
  count: number,
  size: number,
): SampleResult[] {
  const samples: SampleResult[] = new Array(size);
  for (const [index, s] of byIndex) {
    for (let j = 0; j < s.samples.length; j++)
      samples[j * count + index] = s.samples[j] as SampleResult;
  }
  return samples;
}

/**
 * Refuses a shard whose samples are not those of the shard it claims to be (its recorded
 * fingerprint says which samples the run gave it): merged by its index, every one of its samples
 * would land in another's place. Results without the fingerprint (older files) pass.
 */
function expectShardSamples(s: ResultData, index: number, count: number): void {
  const recorded = (s.shard as ResultShard).samplesFingerprint;
  if (recorded === undefined) return;
  const samples = s.samples;
  const of = (i: number) =>
    fingerprintShard(
      i,
      count,
      samples.length,
      (j) => (samples[j] as SampleResult).sampleId,
      (j) => (samples[j] as SampleResult).question,
    );
  if (of(index) === recorded) return;
  let actual: number | undefined;
  for (let i = 0; i < count && actual === undefined; i++) if (of(i) === recorded) actual = i;
  const shown = `${index + 1}/${count}`;
  throw new ConfigurationError(
    actual !== undefined
      ? `merge: the result of "${s.name}" that says it is shard ${shown} holds the samples of shard ${actual + 1}/${count} (its shard index was changed); merged, each of its samples would land in another's place. Set its shard index back to ${actual}, or run the shard again`
      : `merge: the samples of shard ${shown} of "${s.name}" are not the ones its run recorded (their ids or questions, or their order, were changed since); merged, they would land in other samples' places. Run the shard again`,
    { kind: "invalid-input", field: "shard" },
  );
}

/** Number of samples shard `index` of `count` takes from a dataset of `size` (round-robin). */
export function shardSize(size: number, index: number, count: number): number {
  return index >= size ? 0 : Math.floor((size - 1 - index) / count) + 1;
}
