/// <reference lib="dom" />
// The HTML report in a real browser: Debian's Chromium driven by playwright-core (never a
// downloaded browser). Reports open from file://, as from an email attachment or a CI artifact.
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Benchmark, BenchmarkResult, type SampleResult } from "@fastrag/bench-core";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Comparison } from "../src/comparison.js";
import { realisticRuns, XSS_QUESTION, XSS_RUN } from "../src/html/__fixtures__/runs.js";
import { DIFF_PAGE } from "../src/html/script.js";

const CHROMIUM = "/usr/bin/chromium";
const SKIP = process.env.FASTRAG_SKIP_BROWSER === "1";
const ARTIFACTS = fileURLToPath(new URL("../../../artifacts/", import.meta.url));
const DEMO = fileURLToPath(new URL("../../../examples/squad-rag/results/", import.meta.url));

/** What a page did while it was open. */
interface Visit {
  readonly page: Page;
  readonly errors: string[];
  readonly requests: string[];
  readonly dialogs: string[];
}

describe.skipIf(SKIP)("the HTML report in Chromium", { timeout: 90_000 }, () => {
  let browser: Browser | undefined;
  let dir = "";

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `Chromium not found at ${CHROMIUM}. Install Debian's package (apt-get install -y chromium; the README's test command does it for root: scripts/ensure-browser.sh) or set FASTRAG_SKIP_BROWSER=1 to skip the browser tests. A browser is never downloaded.`,
      );
    }
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-quic",
      ],
    });
    dir = await mkdtemp(join(tmpdir(), "fastrag-report-"));
    await mkdir(ARTIFACTS, { recursive: true });
  }, 40_000);

  afterAll(async () => {
    await browser?.close();
    if (dir !== "") await rm(dir, { recursive: true, force: true });
  });

  async function open(file: string): Promise<Visit> {
    const page = await (browser as Browser).newPage({ viewport: { width: 1280, height: 900 } });
    const visit: Visit = { page, errors: [], requests: [], dialogs: [] };
    page.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warning") visit.errors.push(m.text());
    });
    page.on("pageerror", (e) => visit.errors.push(e.message));
    page.on("request", (r) => visit.requests.push(r.url()));
    page.on("dialog", (d) => {
      visit.dialogs.push(d.message());
      void d.dismiss();
    });
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector('html[data-ready="1"]', { timeout: 30_000 });
    return visit;
  }

  async function write(name: string, html: string): Promise<string> {
    const file = join(dir, name);
    await writeFile(file, html);
    return file;
  }

  /** Only the report itself may load: nothing over the network, no other file. */
  function expectSelfContained(visit: Visit, file: string): void {
    expect(visit.errors).toEqual([]);
    expect(visit.requests.filter((u) => !u.startsWith("file:") && !u.startsWith("data:"))).toEqual(
      [],
    );
    expect(visit.requests).toEqual([pathToFileURL(file).href]);
  }

  /** Per metric chart: the run index of every mark, in order. */
  async function chartMarks(page: Page): Promise<Record<string, string[]>> {
    return page.$$eval("svg.chart:not(.dist)", (charts) => {
      const out: Record<string, string[]> = {};
      for (const c of charts) {
        const box = c.getBoundingClientRect();
        if (box.width < 100 || box.height < 40) throw new Error("a chart is not laid out");
        out[c.getAttribute("data-metric") ?? "?"] = Array.from(
          c.querySelectorAll("g.mark[data-run]"),
        ).map((g) => g.getAttribute("data-run") ?? "");
      }
      return out;
    });
  }

  /** data-v of one column over every row (shown or not), in table order. */
  async function columnValues(page: Page, col: number): Promise<(string | null)[]> {
    return page.$$eval(
      "#diff-table tbody tr",
      (rows, c) =>
        rows.map((r) => (r as HTMLTableRowElement).cells[c]?.getAttribute("data-v") ?? null),
      col,
    );
  }

  async function shownRows(page: Page): Promise<number> {
    return page.locator("#diff-table tbody tr:not([hidden])").count();
  }

  /** Rows matching the filters: all of them, or the first page when there are more. */
  async function expectMatched(page: Page, matched: number): Promise<void> {
    expect(Number(await page.getAttribute("#diff-table", "data-matched"))).toBe(matched);
    expect(await shownRows(page)).toBe(Math.min(matched, DIFF_PAGE));
    expect(await page.locator("#diff-more").isVisible()).toBe(matched > DIFF_PAGE);
  }

  it("renders realistic runs: charts per metric, latency view, sortable and filterable diff", async () => {
    const runs = realisticRuns({ samples: 400 });
    const comparison = Comparison.of(runs);
    const file = await write("report.html", comparison.toHtml({ diffMetric: "ndcg@5" }));
    const visit = await open(file);
    const { page } = visit;
    expectSelfContained(visit, file);

    // Every metric has its chart, with one mark per run.
    expect(await chartMarks(page)).toEqual({
      "recall@5": ["0", "1", "2"],
      "ndcg@5": ["0", "1", "2"],
      latency_ms: ["0", "1", "2"],
    });
    expect(await page.locator('svg.chart.dist[data-metric="latency_ms"] g.mark').count()).toBe(3);
    expect(await page.locator("#runs tbody tr").count()).toBe(3);

    // Expected rows from diff(), independent of the renderer (400 samples: nothing is capped).
    const diffs = [1, 2].map((i) => comparison.diff(0, i, { metric: "ndcg@5" }));
    const total = diffs.reduce(
      (n, d) =>
        n + d.improved.length + d.regressed.length + d.newlyErrored.length + d.recovered.length,
      0,
    );
    expect(total).toBeGreaterThan(DIFF_PAGE);
    await expectMatched(page, total);
    expect(await page.locator("#diff-count").textContent()).toBe(
      `${total} rows, first ${DIFF_PAGE} shown`,
    );
    // Rows past the first page start hidden; "show more" lays out the next page.
    await page.click("#diff-more");
    expect(await shownRows(page)).toBe(Math.min(total, 2 * DIFF_PAGE));

    // Sorting: Δ (column 5) ascending, then descending; missing values stay last.
    await page.click("#diff-table thead th:nth-child(6) button");
    const asc = await columnValues(page, 5);
    const numbers = asc.filter((v) => v !== "").map(Number);
    expect(numbers.length).toBeGreaterThan(10);
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    expect(asc.slice(numbers.length).every((v) => v === "")).toBe(true);
    expect(await page.getAttribute("#diff-table thead th:nth-child(6)", "aria-sort")).toBe(
      "ascending",
    );
    await page.click("#diff-table thead th:nth-child(6) button");
    const desc = (await columnValues(page, 5)).filter((v) => v !== "").map(Number);
    expect(desc).toEqual([...numbers].sort((a, b) => b - a));
    // The rows shown are the first of the sorted order.
    const shownDesc = await page.$$eval("#diff-table tbody tr", (rows) =>
      rows.map((r) => !(r as HTMLTableRowElement).hidden),
    );
    const firstHidden = shownDesc.indexOf(false);
    expect(shownDesc.slice(firstHidden).every((shown) => !shown)).toBe(true);
    expect(firstHidden).toBe(await shownRows(page));
    // Sorting by question orders the question text.
    await page.click("#diff-table thead th:nth-child(3) button");
    const questions = await page.$$eval("#diff-table tbody tr td.q", (cells) =>
      cells.map((c) => (c.firstChild?.textContent ?? "").toLowerCase()),
    );
    expect(questions).toEqual([...questions].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));

    // Filtering by category, by run, and by text.
    await page.selectOption("#diff-kind", "regressed");
    const regressed = (diffs[0]?.regressed.length ?? 0) + (diffs[1]?.regressed.length ?? 0);
    expect(regressed).toBeGreaterThan(0);
    await expectMatched(page, regressed);
    const kinds = await page.$$eval("#diff-table tbody tr:not([hidden])", (rows) =>
      rows.map((r) => r.getAttribute("data-kind")),
    );
    expect(new Set(kinds)).toEqual(new Set(["regressed"]));
    await page.selectOption("#diff-run", "2");
    const regressedC = diffs[1]?.regressed.length as number;
    await expectMatched(page, regressedC);
    expect(await page.locator("#diff-count").textContent()).toBe(
      `${regressedC} of ${total} rows${regressedC > DIFF_PAGE ? `, first ${DIFF_PAGE} shown` : ""}`,
    );
    await page.selectOption("#diff-kind", "");
    await page.selectOption("#diff-run", "");
    const probe = diffs[0]?.regressed[0];
    const id = probe?.sampleId as string;
    const changedIn = diffs.filter((d) =>
      [...d.improved, ...d.regressed, ...d.newlyErrored, ...d.recovered].some(
        (c) => c.sampleId === id,
      ),
    ).length;
    await page.fill("#diff-q", `topic ${id.slice(1)} (`);
    await expectMatched(page, changedIn);
    await page.fill("#diff-q", "TimeoutError");
    const newlyErrored =
      (diffs[0]?.newlyErrored.length ?? 0) + (diffs[1]?.newlyErrored.length ?? 0);
    const recovered = (diffs[0]?.recovered.length ?? 0) + (diffs[1]?.recovered.length ?? 0);
    expect(newlyErrored).toBeGreaterThan(0);
    await expectMatched(page, newlyErrored + recovered);
    await page.fill("#diff-q", "");
    await expectMatched(page, total);
    expect(visit.errors).toEqual([]);

    // Screenshots, light and dark (artifacts/ is git-ignored).
    await page.click("#diff-table thead th:nth-child(2) button");
    await page.evaluate(() => window.scrollTo(0, 0));
    const diffTop = await page.$eval("#diff-table", (t) => t.getBoundingClientRect().top);
    for (const colorScheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme });
      await page.screenshot({ path: join(ARTIFACTS, `report-${colorScheme}.png`), fullPage: true });
      // For the README: the header down to the first rows of the diff.
      await page.screenshot({
        path: join(ARTIFACTS, `report-${colorScheme}-top.png`),
        fullPage: true,
        clip: { x: 0, y: 0, width: 1280, height: Math.round(diffTop + 420) },
      });
    }
    await page.emulateMedia({ media: "print" });
    expect(await page.locator(".controls").isVisible()).toBe(false);
    await page.close();
  });

  it("opens the demo's retrieval report", async (context) => {
    let file = join(DEMO, "retrieval-report.html");
    if (!existsSync(file)) {
      // The demo has not written its report: build it as the demo does, from its result files.
      if (!existsSync(join(DEMO, "retrieval/paragraphs.json"))) {
        context.skip("no demo results: run `pnpm demo` first");
        return;
      }
      const demo = await Comparison.load(join(DEMO, "retrieval/*.json"));
      file = await write(
        "retrieval-report.html",
        demo.toHtml({ baseline: 0, diffMetric: "ndcg@5" }),
      );
    }
    const visit = await open(file);
    const { page } = visit;
    expectSelfContained(visit, file);
    const runs = await page.locator("#runs tbody tr").count();
    expect(runs).toBeGreaterThan(1);
    const marks = await chartMarks(page);
    const metrics = await page.$$eval("#results-table thead th[title]", (ths) => ths.length);
    expect(Object.keys(marks)).toHaveLength(metrics);
    for (const runIds of Object.values(marks)) {
      expect(runIds).toEqual(Array.from({ length: runs }, (_, i) => String(i)));
    }
    const all = Number(await page.getAttribute("#diff-table", "data-matched"));
    await page.click("#diff-table thead th:nth-child(6) button");
    const asc = (await columnValues(page, 5)).filter((v) => v !== "").map(Number);
    expect(asc).toEqual([...asc].sort((a, b) => a - b));
    await page.selectOption("#diff-kind", "improved");
    const improved = Number(await page.getAttribute("#diff-table", "data-matched"));
    expect(improved).toBeGreaterThan(0);
    expect(improved).toBeLessThan(all);
    await expectMatched(page, improved);
    for (const colorScheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme });
      await page.screenshot({
        path: join(ARTIFACTS, `demo-report-${colorScheme}.png`),
        fullPage: true,
      });
    }
    await page.close();
  });

  it("keeps the XSS probe inert and shows it literally", async () => {
    const sample = (over: Partial<SampleResult>): SampleResult => ({
      sampleId: "q0",
      question: XSS_QUESTION,
      status: "successful",
      scores: { "recall@5": 1 },
      answer: `<img src=y onerror="window.__xss=2">`,
      retrievedIds: ["<script>window.__xss=3</script>"],
      retrievedUris: [null],
      latencyMs: 5,
      error: null,
      ...over,
    });
    const base = new BenchmarkResult({
      name: "baseline",
      createdAt: new Date("2025-01-01T00:00:00Z"),
      durationS: 1,
      higherIsBetter: { "recall@5": true },
      samples: [sample({}), sample({ sampleId: "q1", question: "second question" })],
    });
    const probe = new BenchmarkResult({
      name: XSS_RUN,
      createdAt: new Date("2025-01-01T00:00:00Z"),
      durationS: 1,
      higherIsBetter: { "recall@5": true },
      samples: [
        sample({ scores: { "recall@5": 0 } }),
        sample({
          sampleId: "q1",
          question: "second question",
          status: "errored",
          scores: { "recall@5": null },
          answer: null,
          retrievedIds: [],
          retrievedUris: [],
          error: `<svg onload="window.__xss=4"></svg>`,
        }),
      ],
    });
    const html = Comparison.of([base, probe]).toHtml();
    // Once as written, and once without the CSP: escaping alone must keep it inert.
    const withoutCsp = html.replace(/<meta http-equiv="Content-Security-Policy"[^>]*>/, "");
    expect(withoutCsp).not.toBe(html);
    for (const [name, page_] of [
      ["xss.html", html],
      ["xss-no-csp.html", withoutCsp],
    ] as const) {
      const file = await write(name, page_);
      const visit = await open(file);
      const { page } = visit;
      expectSelfContained(visit, file);
      expect(visit.dialogs).toEqual([]);
      expect(await page.evaluate(() => (window as { __xss?: number }).__xss)).toBeUndefined();
      expect(await page.locator("img, iframe, body svg[onload]").count()).toBe(0);
      expect(await page.locator("script").count()).toBe(1);
      // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what a reader sees.
      const text = await page.locator("body").innerText();
      expect(text).toContain(XSS_QUESTION);
      expect(text).toContain(XSS_RUN);
      expect(text).toContain(`<svg onload="window.__xss=4"></svg>`);
      expect(text).toContain(`“<img src=y onerror="window.__xss=2">”`);
      expect(await page.title()).toContain(XSS_RUN);
      await page.close();
    }
  });
  it("shows judgments collapsed, opens them on a click, and keeps a hostile statement inert", async () => {
    const hostile = `<img src=z onerror="window.__xss=5">`;
    const judged = (score: number, verdict: 0 | 1): SampleResult => ({
      sampleId: "q0",
      question: "What is the capital of France?",
      status: "successful",
      scores: { faithfulness: score },
      answer: "Paris.",
      retrievedIds: ["d1"],
      retrievedUris: [null],
      latencyMs: 5,
      error: null,
      judgments: {
        faithfulness: [
          {
            step: "verdicts",
            attempt: 0,
            about: "the retrieved context",
            key: "k",
            reply: { verdicts: [{ statement: hostile, reason: "<b>why</b>", verdict }] },
          },
        ],
      },
    });
    const result = (name: string, s: SampleResult) =>
      new BenchmarkResult({
        name,
        createdAt: new Date("2025-01-01T00:00:00Z"),
        durationS: 1,
        higherIsBetter: { faithfulness: true },
        samples: [s],
      });
    const html = Comparison.of([
      result("base", judged(1, 1)),
      result("cand", judged(0, 0)),
    ]).toHtml();
    const withoutCsp = html.replace(/<meta http-equiv="Content-Security-Policy"[^>]*>/, "");
    for (const [name, page_] of [
      ["judgments.html", html],
      ["judgments-no-csp.html", withoutCsp],
    ] as const) {
      const file = await write(name, page_);
      const visit = await open(file);
      const { page } = visit;
      expectSelfContained(visit, file);
      const details = page.locator("details.judg");
      expect(await details.count()).toBe(2);
      // Collapsed: the summary shows, the statements do not.
      expect(await page.locator("details.judg li").first().isVisible()).toBe(false);
      await page.locator("details.judg summary").nth(1).click();
      const item = page.locator("details.judg").nth(1).locator("li.fail");
      expect(await item.isVisible()).toBe(true);
      // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what a reader sees.
      expect(await item.innerText()).toContain(`✗ not supported${hostile}`);
      expect(visit.dialogs).toEqual([]);
      expect(await page.evaluate(() => (window as { __xss?: number }).__xss)).toBeUndefined();
      expect(await page.locator("img, b").count()).toBe(0);
      await page.close();
    }
  });

  it("shows runs with trials: each sample's spread, and filters the samples whose trials disagree", async () => {
    const n = 300;
    const dataset = Array.from({ length: n }, (_, i) => ({
      id: `q${i}`,
      question: `question ${i}?`,
      expectedAnswers: ["right"],
      relevantIds: [],
    }));
    const em = {
      name: "em",
      higherIsBetter: true,
      needsRelevantIds: false,
      needsAnswer: true,
      score: ({ answer }: { answer: string | null }) => (answer === "right" ? 1 : 0),
    };
    // A seeded engine: every third sample is steady (always right), the others right with p = 0.5.
    let state = 7;
    const next = () => {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      return state / 4294967296;
    };
    const engine = {
      query: async (_q: string, { sample }: { sample: { id?: string } }) => ({
        answer: Number(sample.id?.slice(1)) % 3 === 0 || next() < 0.5 ? "right" : "wrong",
      }),
    };
    const bench = new Benchmark({ dataset, metrics: [em], maxConcurrent: 1 });
    const base = await bench.run(engine, { name: "one trial" });
    const five = await bench.run(engine, { name: "five trials", trials: 5 });
    // Expected from the records: a sample flips when its trials' scores are not all equal.
    const flips = new Set(
      five.samples
        .filter((s) => new Set((s.trials ?? []).map((t) => t.scores.em)).size > 1)
        .map((s) => s.sampleId),
    );
    expect(flips.size).toBeGreaterThan(50);
    expect(flips.size).toBeLessThan(n);
    const comparison = Comparison.of([base, five]);
    const file = await write("trials.html", comparison.toHtml({ diffMetric: "em" }));
    const visit = await open(file);
    const { page } = visit;
    expectSelfContained(visit, file);

    const trialRows = "#trials-table tbody tr";
    expect(await page.locator(trialRows).count()).toBe(n);
    expect(Number(await page.getAttribute("#trials-table", "data-matched"))).toBe(n);
    await page.check("#trials-disagree");
    expect(Number(await page.getAttribute("#trials-table", "data-matched"))).toBe(flips.size);
    expect(await page.locator(`${trialRows}:not([hidden])`).count()).toBe(flips.size);
    const shownIds = await page.$$eval(`${trialRows}:not([hidden]) .sid`, (ids) =>
      ids.map((e) => e.textContent),
    );
    expect(new Set(shownIds)).toEqual(flips);
    expect(await page.locator("#trials-count").textContent()).toBe(`${flips.size} of ${n} samples`);
    await page.uncheck("#trials-disagree");
    expect(await page.locator(`${trialRows}:not([hidden])`).count()).toBe(n);

    // The diff's own filter keeps the changed samples whose trials disagree.
    const d = comparison.diff(0, 1, { metric: "em" });
    const changed = [...d.improved, ...d.regressed, ...d.newlyErrored, ...d.recovered];
    const changedFlips = changed.filter((c) => flips.has(c.sampleId)).length;
    expect(changedFlips).toBeGreaterThan(0);
    await page.check("#diff-disagree");
    expect(Number(await page.getAttribute("#diff-table", "data-matched"))).toBe(changedFlips);
    await page.close();
  });
});
