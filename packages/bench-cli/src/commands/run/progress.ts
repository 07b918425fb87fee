// What a target's run shows while it runs: a bar on a terminal, sparse lines in CI logs.
import type { Progress } from "@fastrag/bench-core";
import cliProgress from "cli-progress";
import { type Io, writeLine } from "../../internal/io.js";
import { printable } from "../../internal/printable.js";

/** A target's progress display: updated on each finished sample, stopped before other output. */
export interface ProgressHandle {
  readonly update: (p: Progress) => void;
  readonly stop: () => void;
}

/** What a target's progress display shows: its name, its samples, a rate limit, trials. */
export interface ProgressOptions {
  readonly name: string;
  /** The samples this run (or shard) runs. */
  readonly total: number;
  /** With a rate limit: the concurrency in force and the calls rate-limited are shown too. */
  readonly limited: boolean;
  readonly trials: number;
}

/**
 * A progress bar on a terminal; in CI logs, nothing per sample (one line per target instead), and
 * with a rate limit a line at each tenth of the samples, with the concurrency in force and the
 * calls rate-limited so far.
 */
export function startProgress(io: Io, options: ProgressOptions): ProgressHandle {
  if (!io.stderr.isTTY) return logLines(io, options);
  return progressBar(io, options);
}

/**
 * CI logs: with trials (a run n times as long) or a rate limit, a line at each tenth of the
 * trials or samples; else nothing.
 */
function logLines(io: Io, { name, limited, trials }: ProgressOptions): ProgressHandle {
  if (!limited && trials === 1) return { update: () => {}, stop: () => {} };
  const target = printable(name);
  let tenth = 0;
  return {
    update: (p) => {
      const of = trials > 1 ? (p.trialsDone ?? 0) / (p.trialsTotal ?? 1) : p.done / p.total;
      const reached = p.total === 0 ? 10 : Math.floor(of * 10);
      if (reached <= tenth) return;
      tenth = reached;
      const trialsPart = trials > 1 ? ` | trials ${p.trialsDone ?? 0}/${p.trialsTotal ?? 0}` : "";
      const ratePart = limited
        ? ` | concurrency ${p.concurrency ?? "?"} | rate-limited ${p.rateLimited ?? 0}`
        : "";
      writeLine(
        io.stderr,
        `${target}: ${p.done}/${p.total}${trialsPart} | errored ${p.errored}${ratePart}`,
      );
    },
    stop: () => {},
  };
}

/** A terminal: a bar over the samples, or with trials over the trials (the text counts samples too). */
function progressBar(io: Io, { name, total, limited, trials }: ProgressOptions): ProgressHandle {
  const target = printable(name);
  const rate = limited ? " | concurrency {concurrency} | rate-limited {rateLimited}" : "";
  // The name goes in as a value: in the format string, a name such as "{eta}" would be replaced.
  const format =
    trials > 1
      ? `{target} [{bar}] {value}/{total} trials | samples {samples}/${total} | errored {errored}${rate} | ETA {eta_formatted}`
      : `{target} [{bar}] {value}/{total} | errored {errored}${rate} | ETA {eta_formatted}`;
  const bar = new cliProgress.SingleBar(
    {
      format,
      stream: io.stderr as NodeJS.WritableStream,
      hideCursor: true,
      clearOnComplete: true,
      etaBuffer: 50,
      noTTYOutput: false,
    },
    cliProgress.Presets.shades_classic,
  );
  // The values the format reads beside the bar's own.
  const values = (p: Partial<Progress>) => ({
    errored: p.errored ?? 0,
    target,
    ...(trials > 1 ? { samples: p.done ?? 0 } : {}),
    concurrency: p.concurrency ?? "",
    rateLimited: p.rateLimited ?? 0,
  });
  bar.start(trials > 1 ? total * trials : total, 0, values({}));
  return {
    update: (p) => bar.update(trials > 1 ? (p.trialsDone ?? 0) : p.done, values(p)),
    stop: () => bar.stop(),
  };
}
