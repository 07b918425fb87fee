// One "shard" process of the two-process test: waits for the go file, then writes its own keys
// and the shared ones while reading the other shard's, then waits for the other to finish and
// reads all of its keys. Prints a JSON summary on stdout.
// argv: <bundled bench-cache module> <store dir> <shard 0|1> <n> <go file> <done dir>
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [modulePath, storeDir, shardText, nText, goFile, doneDir] = process.argv.slice(2);
const shard = Number(shardText);
const other = 1 - shard;
const n = Number(nText);
const { openCache } = await import(modulePath);
const nap = new Int32Array(new SharedArrayBuffer(4));
const sleep = (ms) => Atomics.wait(nap, 0, 0, ms);

const value = (s, i) => ({ shard: s, i, answer: `answer ${s}/${i} `.repeat(8) });
const cache = openCache(storeDir, { busyTimeoutMs: 30_000 });
process.stdout.write("ready\n");
while (!existsSync(goFile)) sleep(2);

let seenDuringWrites = 0;
for (let i = 0; i < n; i++) {
  cache.set(`shard${shard}:${i}`, value(shard, i));
  // Both shards write the same shared keys (as two shards caching one judge prompt would).
  if (i % 10 === 0) cache.set(`shared:${i}`, { i, text: "same from both" });
  const theirs = cache.get(`shard${other}:${i}`);
  if (theirs !== undefined) {
    if (JSON.stringify(theirs) !== JSON.stringify(value(other, i))) {
      throw new Error(`shard ${shard} read a wrong value for shard${other}:${i}`);
    }
    seenDuringWrites++;
  }
}
writeFileSync(join(doneDir, `done-${shard}`), "");
while (!existsSync(join(doneDir, `done-${other}`))) sleep(2);
let seenAfter = 0;
for (let i = 0; i < n; i++) {
  const theirs = cache.get(`shard${other}:${i}`);
  if (JSON.stringify(theirs) === JSON.stringify(value(other, i))) seenAfter++;
}
cache.close();
process.stdout.write(`${JSON.stringify({ shard, seenDuringWrites, seenAfter })}\n`);
