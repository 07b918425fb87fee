// A sample's judging context: the memo its metrics share, the run's cache, the judgments kept.
import type { ResponseCache } from "../cache.js";
import type { JudgingContext, JudgmentStep, Judgments } from "../types.js";

/** The run's settings for model calls inside metrics, built once per run. */
export interface JudgeSettings {
  readonly cache: Pick<ResponseCache, "get" | "set"> | undefined;
  readonly refresh: boolean;
}

/**
 * One sample's {@link JudgingContext}. Made per scored output; the memo and the judgments are
 * allocated on first use, so a sample scored by retrieval metrics alone pays for one object.
 */
export class SampleJudging implements JudgingContext {
  readonly cache: Pick<ResponseCache, "get" | "set"> | undefined;
  readonly refresh: boolean;
  readonly kept: ReadonlyMap<string, Readonly<Record<string, unknown>>> | undefined;
  #memo: Map<string, Promise<unknown>> | undefined;
  #judgments: Record<string, (JudgmentStep | undefined)[]> | undefined;

  constructor(settings: JudgeSettings | undefined, kept: Judgments | undefined) {
    this.cache = settings?.cache;
    this.refresh = settings?.refresh === true;
    this.kept = kept === undefined ? undefined : keptReplies(kept);
  }

  share<T>(key: string, ask: () => Promise<T>): Promise<T> {
    this.#memo ??= new Map();
    const known = this.#memo.get(key);
    if (known !== undefined) return known as Promise<T>;
    // Asked once per sample: a step that failed fails every metric that shares it, with the
    // same reason (asking again would pay for a second, different answer to the same question).
    const pending = ask();
    this.#memo.set(key, pending);
    return pending;
  }

  keep(metric: string): (step: JudgmentStep) => void {
    this.#judgments ??= Object.create(null) as Record<string, (JudgmentStep | undefined)[]>;
    let list = this.#judgments[metric];
    if (list === undefined) {
      list = [];
      this.#judgments[metric] = list;
    }
    const places = list;
    const at = places.push(undefined) - 1;
    return (step) => {
      places[at] = step;
    };
  }

  /**
   * What the sample's metrics kept, or `undefined` when none did. Only the metrics named in
   * `names` (the run's) are kept, in their order; a metric keeps its steps in the order it asked.
   */
  judgments(names: readonly string[]): Judgments | undefined {
    const all = this.#judgments;
    if (all === undefined) return undefined;
    const out: Record<string, readonly JudgmentStep[]> = {};
    let any = false;
    for (const name of names) {
      const places = all[name];
      if (places === undefined) continue;
      const steps = places.filter((s): s is JudgmentStep => s !== undefined);
      if (steps.length === 0) continue;
      Object.defineProperty(out, name, {
        value: steps,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      any = true;
    }
    return any ? out : undefined;
  }
}

/** Every kept step's reply by key (two metrics that shared a step kept one reply). */
function keptReplies(kept: Judgments): Map<string, Readonly<Record<string, unknown>>> {
  const out = new Map<string, Readonly<Record<string, unknown>>>();
  for (const steps of Object.values(kept)) {
    for (const s of steps) if (!out.has(s.key)) out.set(s.key, s.reply);
  }
  return out;
}
