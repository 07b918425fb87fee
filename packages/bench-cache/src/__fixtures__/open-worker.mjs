// One process of the "opening new stores together" test: waits for the go file, then opens
// stores 0..n-1 in the directory in turn (each new, so the processes create them together),
// writes one key in each and closes it. Prints a JSON summary of failures on stdout.
// argv: <bundled bench-cache module> <stores dir> <n> <go file>
import { existsSync } from "node:fs";
import { join } from "node:path";

const [modulePath, dir, nText, goFile] = process.argv.slice(2);
const n = Number(nText);
const { openCache } = await import(modulePath);
const nap = new Int32Array(new SharedArrayBuffer(4));
process.stdout.write("ready\n");
while (!existsSync(goFile)) Atomics.wait(nap, 0, 0, 2);

const failures = [];
for (let i = 0; i < n; i++) {
  try {
    const cache = openCache(join(dir, String(i)));
    cache.set(`pid${process.pid}`, i);
    cache.close();
  } catch (error) {
    failures.push(`${i}: ${error.message}`);
  }
}
process.stdout.write(`${JSON.stringify({ failures })}\n`);
