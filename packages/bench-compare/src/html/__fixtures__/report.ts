import type { BenchmarkResult } from "@fastrag/bench-core";
import { makeResult } from "../../__fixtures__/make-result.js";

/** The markup of one element found by an opening-tag pattern, up to its matching close tag. */
export function elementsOf(html: string, open: RegExp, close: string): string[] {
  const out: string[] = [];
  const re = new RegExp(open.source, "g");
  for (let m = re.exec(html); m !== null; m = re.exec(html)) {
    const end = html.indexOf(close, m.index);
    out.push(html.slice(m.index, end + close.length));
  }
  return out;
}

export function count(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

/** base / good / bad: recall means 0.5, 0.875, 0.125; latency means 100, 100, 200 (by hand). */
export function sigRuns(): BenchmarkResult[] {
  const fill = (n: number, v: number) => new Array<number>(n).fill(v);
  return [
    makeResult({ name: "base", scores: { "recall@5": fill(40, 0.5), latency_ms: fill(40, 100) } }),
    makeResult({
      name: "good",
      scores: { "recall@5": [...fill(30, 1), ...fill(10, 0.5)], latency_ms: fill(40, 100) },
    }),
    makeResult({
      name: "bad",
      scores: { "recall@5": [...fill(30, 0), ...fill(10, 0.5)], latency_ms: fill(40, 200) },
    }),
  ];
}
