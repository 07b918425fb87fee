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

/**
 * A progress bar on a terminal; in CI logs, nothing per sample (one line per target instead), and
 * with a rate limit a line at each tenth of the samples, with the concurrency in force and the
 * calls rate-limited so far.
 */
export function startProgress(
  io: Io,
  name: string,
  total: number,
  limited: boolean,
  trials: number,
): ProgressHandle {
  const target = printable(name);
  if (!io.stderr.isTTY) {
    // With trials a run takes n times as long: a line at each tenth of the trials says how far.
    if (!limited && trials === 1) return { update: () => {}, stop: () => {} };
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
  const rate = limited ? " | concurrency {concurrency} | rate-limited {rateLimited}" : "";
  if (trials > 1) {
    // The bar moves with trials (n per sample); the text says whole samples too.
    const bar = new cliProgress.SingleBar(
      {
        format: `{target} [{bar}] {value}/{total} trials | samples {samples}/${total} | errored {errored}${rate} | ETA {eta_formatted}`,
        stream: io.stderr as NodeJS.WritableStream,
        hideCursor: true,
        clearOnComplete: true,
        etaBuffer: 50,
        noTTYOutput: false,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(total * trials, 0, {
      errored: 0,
      target,
      samples: 0,
      concurrency: "",
      rateLimited: 0,
    });
    return {
      update: (p) =>
        bar.update(p.trialsDone ?? 0, {
          errored: p.errored,
          target,
          samples: p.done,
          concurrency: p.concurrency ?? "",
          rateLimited: p.rateLimited ?? 0,
        }),
      stop: () => bar.stop(),
    };
  }
  const bar = new cliProgress.SingleBar(
    {
      // The name goes in as a value: in the format string, a name such as "{eta}" would be replaced.
      format: `{target} [{bar}] {value}/{total} | errored {errored}${rate} | ETA {eta_formatted}`,
      stream: io.stderr as NodeJS.WritableStream,
      hideCursor: true,
      clearOnComplete: true,
      etaBuffer: 50,
      noTTYOutput: false,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0, { errored: 0, target, concurrency: "", rateLimited: 0 });
  return {
    update: (p) =>
      bar.update(p.done, {
        errored: p.errored,
        target,
        concurrency: p.concurrency ?? "",
        rateLimited: p.rateLimited ?? 0,
      }),
    stop: () => bar.stop(),
  };
}
