import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Comparison } from "@fastrag/bench-compare";
import { Benchmark } from "@fastrag/bench-core";
import { Predictions, QADataset } from "@fastrag/bench-datasets";
import { ExactMatch, TokenF1 } from "@fastrag/bench-metrics/generation";
import { beforeAll, describe, expect, it } from "vitest";
import { sharedData } from "../../../../test-support/shared-data.js";

// The acceptance test of slicing (issue 34, item 7): real leaderboard predictions on the SQuAD
// 2.0 dev sample, compared with `--by metadata.is_impossible`, give the official
// evaluate-v2.0.py's HasAns (is_impossible false) and NoAns (true) scores, from
// ../shared/data/README.md, to 1e-12 on its 0–100 scale; with no hand join.
const bin = fileURLToPath(new URL("../../dist/bin.js", import.meta.url));
const DATA = sharedData("squad-v2-sample/");
const OFFICIAL = [
  {
    name: "bidaf_selfattn_elmo",
    hasAnsExact: 51.877133105802045,
    hasAnsF1: 56.13092743234652,
    noAnsExact: 72.07207207207207,
  },
  {
    name: "nlnet",
    hasAnsExact: 69.96587030716724,
    hasAnsF1: 73.94116691045019,
    noAnsExact: 82.58258258258259,
  },
];

let files: string[];
beforeAll(async () => {
  expect(existsSync(bin), "build the package first (pnpm build)").toBe(true);
  const dir = await mkdtemp(join(tmpdir(), "fastrag-slices-"));
  const dataset = await QADataset.load(`${DATA}dev-v2.0.sample.json`);
  files = [];
  for (const { name } of OFFICIAL) {
    const engine = await Predictions.load(`${DATA}predictions/${name}.json`);
    const result = await new Benchmark({
      dataset,
      metrics: [new ExactMatch(), new TokenF1()],
    }).run(engine, { name });
    const file = join(dir, `${name}.json`);
    await result.save(file);
    files.push(file);
  }
});

const close = (ours: number, theirs: number) =>
  expect(Math.abs(ours * 100 - theirs)).toBeLessThan(1e-12);

describe("slicing SQuAD v2 by is_impossible", () => {
  it("compare --by metadata.is_impossible gives the official HasAns and NoAns scores", () => {
    const r = spawnSync(
      process.execPath,
      [bin, "compare", ...files, "--by", "metadata.is_impossible", "--format", "json"],
      { encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } },
    );
    expect(r.status, r.stderr).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(json.by).toBe("metadata.is_impossible");
    // 293 answerable, 333 unanswerable; every SQuAD question carries the flag.
    expect(
      json.slices.map((s: { value: unknown; samples: number }) => [s.value, s.samples]),
    ).toEqual([
      [false, 293],
      [true, 333],
    ]);
    const [hasAns, noAns] = json.slices;
    OFFICIAL.forEach((official, i) => {
      close(hasAns.table.runs[i].values.exact_match, official.hasAnsExact);
      close(hasAns.table.runs[i].values.f1, official.hasAnsF1);
      close(noAns.table.runs[i].values.exact_match, official.noAnsExact);
      // On an unanswerable question F1 is 1 exactly when EM is: NoAns F1 = NoAns exact.
      close(noAns.table.runs[i].values.f1, official.noAnsExact);
    });
    const md = spawnSync(
      process.execPath,
      [bin, "compare", ...files, "--by", "metadata.is_impossible"],
      {
        encoding: "utf8",
      },
    );
    expect(md.stdout).toContain("### metadata.is_impossible = false (293 samples)");
    expect(md.stdout).toContain("### metadata.is_impossible = true (333 samples)");
  });

  it("Comparison.slices gives the same from the library", async () => {
    const comparison = await Comparison.load(...files);
    const [hasAns, noAns] = comparison.slices("metadata.is_impossible");
    expect([hasAns?.samples, noAns?.samples]).toEqual([293, 333]);
    OFFICIAL.forEach((official, i) => {
      const h = hasAns?.comparison.results[i]?.summary;
      const n = noAns?.comparison.results[i]?.summary;
      close(h?.exact_match?.mean as number, official.hasAnsExact);
      close(h?.f1?.mean as number, official.hasAnsF1);
      close(n?.exact_match?.mean as number, official.noAnsExact);
    });
  });

  it("refuses --by on a field no sample has, naming --by and the fields there are", () => {
    const r = spawnSync(
      process.execPath,
      [bin, "compare", ...files, "--by", "metadata.impossible"],
      {
        encoding: "utf8",
      },
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("--by");
    expect(r.stderr).toContain('"metadata.is_impossible"');
    const bad = spawnSync(process.execPath, [bin, "compare", ...files, "--by", "is_impossible"], {
      encoding: "utf8",
    });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("--by");
  });
});
