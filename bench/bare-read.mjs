// The floor `bench/eval.mjs` compares `fastrag-bench eval` with: a bare Node process that reads
// each file given in 1 MiB chunks and looks at every byte (counting newlines), nothing more.
import { closeSync, openSync, readSync } from "node:fs";

const buffer = Buffer.allocUnsafe(1 << 20);
let lines = 0;
for (const path of process.argv.slice(2)) {
  const fd = openSync(path, "r");
  for (;;) {
    const n = readSync(fd, buffer, 0, buffer.length, null);
    if (n === 0) break;
    for (let i = 0; i < n; i++) if (buffer[i] === 10) lines++;
  }
  closeSync(fd);
}
process.stdout.write(`${lines}\n`);
