#!/usr/bin/env node
import { main } from "./cli.js";
import { stalled } from "./internal/activity.js";

const controller = new AbortController();
// The first Ctrl-C (or SIGTERM) stops `run` gracefully: no new sample starts, and the calls in
// flight are not told to abort (a paid call cancelled now would be paid again on resume). The
// second Ctrl-C aborts them; a third quits at once.
const stop = new AbortController();
let interrupts = 0;
let terminated = false;
// Only `run` stops gracefully (its samples cost calls, and are journaled); the other commands
// end at once on a signal, as any program does.
const graceful = process.argv.slice(2).find((arg) => !arg.startsWith("-")) === "run";
if (graceful) {
  process.on("SIGINT", () => {
    interrupts++;
    if (interrupts === 1) {
      process.stderr.write(
        "\nstopping: no new sample starts; in-flight samples finish and are kept (Ctrl-C again to cancel them)\n",
      );
      stop.abort(new Error("interrupted"));
    } else if (interrupts === 2) {
      process.stderr.write(
        "\ncancelling in-flight samples (they run again on resume; Ctrl-C again to quit now)\n",
      );
      controller.abort(new Error("interrupted twice"));
    } else {
      process.exit(130);
    }
  });
  // SIGTERM (`docker stop`, Kubernetes, a CI timeout) stops as a first Ctrl-C does: finished
  // samples are kept and locks released. A second one quits at once. The exit code is 143.
  process.on("SIGTERM", () => {
    if (terminated) process.exit(143);
    terminated = true;
    process.stderr.write("\nterminated: letting in-flight samples finish\n");
    stop.abort(new Error("terminated"));
  });
}

// A reader that stops early (`fastrag-bench diff … | head`) closes the pipe: the rest of the
// output has nowhere to go, which is no failure of the command. Its exit code stands.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE" || error.code === "ERR_STREAM_DESTROYED") return;
    process.stderr.write(`fastrag-bench: cannot write output: ${error.message}\n`);
    process.exit(70);
  });
}

// The event loop ran empty while `main` still awaits a promise: nothing can ever settle it (a
// config whose default export never resolves, a target call that returns a promise nothing
// settles). Node would exit with code 13 and print nothing. Say what never settled; for `run`,
// stop as a Ctrl-C does (finished samples kept, locks released), and exit 2.
let settled = false;
let stallReported = false;
process.on("beforeExit", () => {
  if (settled) return;
  if (!stallReported && graceful) {
    stallReported = true;
    process.stderr.write(`fastrag-bench: error: ${stalled()}\n`);
    controller.abort(new Error("stalled: nothing can settle what the run waits on"));
    // One more turn of the loop: the abort may settle the run (then it ends as a stop does);
    // if it does not, this handler runs again and exits.
    setImmediate(() => {});
    return;
  }
  if (!stallReported) process.stderr.write(`fastrag-bench: error: ${stalled()}\n`);
  process.exit(2);
});

try {
  process.exitCode = await main(
    process.argv.slice(2),
    { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() },
    controller.signal,
    stop.signal,
  );
  if (terminated && process.exitCode !== 0) process.exitCode = 143;
  if (stallReported) process.exitCode = 2;
} catch (error) {
  process.stderr.write(
    `fastrag-bench: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 70;
} finally {
  settled = true;
}

// `run` executed the config's code, and a handle it left open (a database or vector-store client's
// pool, an HTTP agent with keep-alive, a timer, a call that ignored its timeout's signal) would
// keep the process alive after the results are saved: a CI job would hang until its own timeout.
// Nothing of the command is left to do, so it exits once its output is written.
if (graceful) {
  let pending = 2;
  const done = () => {
    if (--pending === 0) process.exit();
  };
  process.stdout.write("", done);
  process.stderr.write("", done);
}
