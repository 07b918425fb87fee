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
