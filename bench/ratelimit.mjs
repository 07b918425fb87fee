// Rate limits (issue 29). Run: node bench/ratelimit.mjs (after `pnpm build`). Real time, one run.
// A simulated provider: a token bucket of 100 requests a second (burst 10) that answers
// { status: 429, retryAfterMs } over the limit, with log-normal latencies (median 150 ms,
// sigma 0.8: p99 about 1 s), seeded. (packages/bench-core/src/__fixtures__/simulated-provider.ts
// is the same double in TypeScript, for the tests.)
// 1. adaptive from maxConcurrent 64: share of the provider's limit, errored samples, wall vs ideal;
// 2. fixed 64 with retries (3 attempts, 500 ms backoff, on 429): errored samples, wall time;
// 3. fixed 4: the wall time it wastes against the ideal;
// 4. the provider's limit halves 5 s into an adaptive run: seconds until every 3-s moving
//    average of admitted calls is at >= 90 % of the new limit.
import { Benchmark } from "../packages/bench-core/dist/index.js";

const RATE = 100;
const BURST = 10;
const N = Number(process.env.RL_SAMPLES ?? 1000);

function seeded(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
function logNormal(random, medianMs, sigma) {
  return () => {
    const u = Math.max(random(), 1e-12);
    const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
    return medianMs * Math.exp(sigma * z);
  };
}
class Provider {
  constructor(rate, burst, latency) {
    this.rate = rate;
    this.burst = burst;
    this.tokens = burst;
    this.last = performance.now();
    this.latency = latency;
    this.served = 0;
    this.refused = 0;
    this.admitted = [];
  }
  refill() {
    const now = performance.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.rate);
    this.last = now;
  }
  setRate(rate) {
    this.refill();
    this.rate = rate;
  }
  async call() {
    this.refill();
    if (this.tokens < 1) {
      this.refused++;
      const retryAfterMs = Math.ceil(((1 - this.tokens) / this.rate) * 1000);
      throw Object.assign(new Error("429 Too Many Requests"), { status: 429, retryAfterMs });
    }
    this.tokens -= 1;
    this.served++;
    this.admitted.push(performance.now());
    await new Promise((r) => setTimeout(r, this.latency()));
  }
}

const samples = (n) =>
  Array.from({ length: n }, (_, i) => ({
    id: `q${i}`,
    question: `q${i}`,
    expectedAnswers: [],
    relevantIds: [],
  }));
const metric = {
  name: "ok",
  higherIsBetter: true,
  needsRelevantIds: false,
  needsAnswer: false,
  score: () => 1,
};
const engine = (p) => ({
  async query() {
    await p.call();
    return { answer: "a" };
  },
});

async function scenario(label, n, benchOptions, runOptions = {}, during) {
  const provider = new Provider(RATE, BURST, logNormal(seeded(1), 150, 0.8));
  const b = new Benchmark({ dataset: samples(n), metrics: [metric], ...benchOptions });
  const t0 = performance.now();
  const timer = during?.(provider);
  const r = await b.run(engine(provider), { name: label, ...runOptions });
  const wall = (performance.now() - t0) / 1000;
  clearTimeout(timer);
  const ideal = n / RATE;
  const ok = r.status.successful;
  console.log(
    `${label}: ${n} samples in ${wall.toFixed(2)} s (ideal ${ideal.toFixed(1)} s, ${(wall / ideal).toFixed(2)}x); ` +
      `throughput ${(ok / wall).toFixed(1)}/s = ${((ok / wall / RATE) * 100).toFixed(1)} % of the limit; ` +
      `errored ${r.status.errored}; 429s ${provider.refused}` +
      (r.rateLimit
        ? `; concurrency final ${r.rateLimit.concurrencyFinal}, lowest ${r.rateLimit.concurrencyMin}`
        : ""),
  );
  if (benchOptions.rateLimit) {
    // Past the start (2 s) and up to the last admission: the rate the run held.
    const last = provider.admitted.at(-1) - t0;
    const held = provider.admitted.filter((a) => a - t0 >= 2000).length / ((last - 2000) / 1000);
    console.log(
      `  held from 2 s to the last admission: ${held.toFixed(1)}/s = ${((held / RATE) * 100).toFixed(1)} % of the first limit`,
    );
  }
  return { provider, t0, r };
}

await scenario("adaptive from 64", N, { maxConcurrent: 64, rateLimit: { adaptive: true } });
await scenario(
  "fixed 64 + retries",
  N,
  { maxConcurrent: 64 },
  {
    retries: { attempts: 3, backoffMs: 500, retryOn: (e) => e?.status === 429 },
  },
);
await scenario("fixed 4", N, { maxConcurrent: 4 });
const halved = await scenario(
  "adaptive, limit halves at 5 s",
  1500,
  { maxConcurrent: 64, rateLimit: { adaptive: true } },
  {},
  (p) => setTimeout(() => p.setRate(RATE / 2), 5000),
);
{
  const { provider, t0 } = halved;
  const end = (provider.admitted.at(-1) - t0) / 1000;
  const per = [];
  for (let s = 5; s + 1 <= Math.floor(end); s++) {
    per.push(provider.admitted.filter((a) => a - t0 >= s * 1000 && a - t0 < (s + 1) * 1000).length);
  }
  let from = Number.POSITIVE_INFINITY;
  for (let s = per.length - 3; s >= 0; s--) {
    if ((per[s] + per[s + 1] + per[s + 2]) / 3 < 0.9 * (RATE / 2)) break;
    from = s;
  }
  console.log(`  admitted per second after the halving: ${per.join(" ")}`);
  console.log(
    `  recovered (every 3-s average >= 90 % of 50/s) ${from} s after the halving (target <= 10 s)`,
  );
}
