#!/usr/bin/env node
import { main } from "./cli.js";

const controller = new AbortController();
let interrupts = 0;
process.on("SIGINT", () => {
  interrupts++;
  if (interrupts === 1) {
    process.stderr.write(
      "\nstopping: letting in-flight samples finish (Ctrl-C again to quit now)\n",
    );
    controller.abort(new Error("interrupted"));
  } else {
    process.exit(130);
  }
});

// A reader that stops early (`fastrag-bench diff … | head`) closes the pipe: the rest of the
// output has nowhere to go, which is no failure of the command. Its exit code stands.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE" || error.code === "ERR_STREAM_DESTROYED") return;
    process.stderr.write(`fastrag-bench: cannot write output: ${error.message}\n`);
    process.exit(70);
  });
}

try {
  process.exitCode = await main(
    process.argv.slice(2),
    { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() },
    controller.signal,
  );
} catch (error) {
  process.stderr.write(
    `fastrag-bench: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 70;
}
