// Response cache store (issue 27). Run: node bench/cache.mjs (after `pnpm build`).
// 10,000 keys of the shape the runner stores (target:<sha256>, a query engine's answer with
// 5 chunks, about 400 bytes of JSON), in a fresh store under bench/.data/:
// 1. set: each a committed write (as in a run: one per finished sample);
// 2. get (hit): every key once, in another order, value parsed; what a cached re-run pays a sample;
// 3. get (miss): keys that are not there;
// 4. the key itself: targetCacheKey over the sample (SHA-256 of its id, question, metadata);
// 5. the same through MemoryCache, as the floor of any store (a Map and JSON.parse);
// 6. opening an existing store of 10,000 keys (a process's one-time cost).
// Target: a hit well under a millisecond.
import { mkdirSync, rmSync } from "node:fs";
import { openCache } from "../packages/bench-cache/dist/index.js";
import { MemoryCache, targetCacheKey } from "../packages/bench-core/dist/index.js";

const N = 10_000;
const ROUNDS = 3;
const dataDir = new URL("./.data/", import.meta.url).pathname;
mkdirSync(dataDir, { recursive: true });

const samples = Array.from({ length: N }, (_, i) => ({
  id: `q${i}`,
  question: `What is the answer to question number ${i}?`,
  metadata: { source: "bench", topic: `t${i % 17}` },
}));
const value = (i) => ({
  answer: `The answer to question ${i} is in the third paragraph of the manual.`,
  chunks: Array.from({ length: 5 }, (_, j) => ({
    id: `doc-${i}-${j}`,
    uri: `doc://${i}/${j}`,
    score: 1 / (j + 1),
  })),
  usage: { inputTokens: 812, outputTokens: 64, cost: 0.00042 },
});

function time(fn) {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start) / 1e3; // µs
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const perOp = (us) => `${(us / N).toFixed(2)} µs/op`;

let keys;
const keyTimes = [];
for (let r = 0; r < ROUNDS; r++) {
  keyTimes.push(
    time(() => {
      keys = samples.map((sample) => targetCacheKey({ runName: "bench", sample }));
    }),
  );
}
const values = keys.map((_, i) => value(i));
const shuffled = keys.map((_, i) => keys[(i * 7919) % N]); // 7919 is prime: a permutation
const missing = keys.map((k) => `${k}-missing`);

function measure(makeStore, label) {
  const sets = [];
  const hits = [];
  const misses = [];
  for (let r = 0; r < ROUNDS; r++) {
    const dir = `${dataDir}cache-bench-${r}`;
    rmSync(dir, { recursive: true, force: true });
    const store = makeStore(dir);
    sets.push(
      time(() => {
        for (let i = 0; i < N; i++) store.set(keys[i], values[i]);
      }),
    );
    let found = 0;
    hits.push(
      time(() => {
        for (let i = 0; i < N; i++) if (store.get(shuffled[i]) !== undefined) found++;
      }),
    );
    if (found !== N) throw new Error(`${label}: ${found} hits of ${N}`);
    misses.push(
      time(() => {
        for (let i = 0; i < N; i++) store.get(missing[i]);
      }),
    );
    store.close();
  }
  console.log(
    `${label.padEnd(22)} set ${perOp(median(sets))}   get hit ${perOp(median(hits))}   get miss ${perOp(median(misses))}`,
  );
  return median(hits) / N;
}

console.log(`${N.toLocaleString("en")} keys, median of ${ROUNDS} rounds`);
console.log(`targetCacheKey         ${perOp(median(keyTimes))}`);
const memoryHit = measure(() => new MemoryCache(), "MemoryCache");
const sqliteHit = measure((dir) => openCache(dir), "SqliteCache (openCache)");

const dir = `${dataDir}cache-bench-0`;
const store = openCache(dir);
for (let i = 0; i < N; i++) store.set(keys[i], values[i]);
store.close();
const opens = [];
for (let r = 0; r < ROUNDS; r++) opens.push(time(() => openCache(dir).close()));
console.log(`open a 10,000-key store ${(median(opens) / 1e3).toFixed(2)} ms`);
for (let r = 0; r < ROUNDS; r++)
  rmSync(`${dataDir}cache-bench-${r}`, { recursive: true, force: true });

console.log(
  `hit: ${sqliteHit.toFixed(2)} µs (${(sqliteHit / 1000).toFixed(4)} ms; target well under 1 ms: ${sqliteHit < 100 ? "met" : "NOT met"}), ${(sqliteHit / memoryHit).toFixed(1)}× MemoryCache's`,
);
