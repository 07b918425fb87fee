import { readdir } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { ConfigurationError } from "@fastrag/bench-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rejection, tempFile } from "../__fixtures__/helpers.js";
import { QADataset } from "../qa-dataset.js";

// A local node:http server stands in for a remote host: no outside network.
const JSONL =
  '{"id": "q1", "question": "Capital of France?", "answers": ["Paris"], "relevant_ids": ["d1"]}\n' +
  '{"id": "q2", "question": "Capital of Spain?", "answers": ["Madrid"], "relevant_ids": ["d2", "d3"]}\n';
const SAMPLES = [
  { id: "q1", question: "Capital of France?", expectedAnswers: ["Paris"], relevantIds: ["d1"] },
  {
    id: "q2",
    question: "Capital of Spain?",
    expectedAnswers: ["Madrid"],
    relevantIds: ["d2", "d3"],
  },
];
const CSV = 'id,question,answer\nq1,"Capital of France?",Paris\n';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;
const routes: Record<string, Handler> = {
  "/data/eval.jsonl": (_, res) => res.end(JSONL),
  "/data/eval.jsonl.gz": (_, res) => res.end(gzipSync(JSONL)),
  "/data/eval.csv": (_, res) => res.end(CSV),
  "/data/moved.jsonl": (_, res) => {
    res.writeHead(302, { location: "/data/eval.jsonl" });
    res.end();
  },
  "/data/bad.jsonl": (_, res) => res.end(`${JSONL}{"id": "q3", "question": }\n`),
  "/data/no-gold.jsonl": (_, res) => res.end('{"question": "Who?", "notes": "x"}\n'),
  "/data/missing.jsonl": (_, res) => {
    res.writeHead(404, "Not Found");
    res.end("no such file");
  },
  "/data/broken.jsonl": (_, res) => {
    res.writeHead(503, "Service Unavailable");
    res.end();
  },
  "/data/noext": (_, res) => res.end(JSONL),
  // Headers and a first line, then nothing: a stalled download.
  "/data/stalls.jsonl": (_, res) => {
    res.writeHead(200, { "content-type": "application/jsonl" });
    res.write(JSONL.slice(0, 40));
  },
};

let server: Server;
let base: string;
const stalled: ServerResponse[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (path === "/data/stalls.jsonl") stalled.push(res);
    const route = routes[path];
    if (route === undefined) {
      res.writeHead(404);
      res.end();
    } else route(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const res of stalled) res.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** The temporary download directories now in the temp dir. */
async function downloadDirs(): Promise<Set<string>> {
  return new Set((await readdir(tmpdir())).filter((n) => n.startsWith("fastrag-bench-url-")));
}

describe("QADataset.load of an http(s) URL", () => {
  it("streams the body and reads it by the URL's suffix, naming the URL as the source", async () => {
    const url = new URL(`${base}/data/eval.jsonl`);
    const dataset = await QADataset.load(url);
    expect(dataset.samples).toEqual(SAMPLES);
    expect(dataset.source).toBe(url.href);
  });

  it("takes the URL as a string, and looks past a query string", async () => {
    const dataset = await QADataset.load(`${base}/data/eval.csv?token=abc`);
    expect(dataset.samples).toEqual([
      { id: "q1", question: "Capital of France?", expectedAnswers: ["Paris"], relevantIds: [] },
    ]);
  });

  it("reads a gzip body, and follows a redirect", async () => {
    expect((await QADataset.load(`${base}/data/eval.jsonl.gz`)).samples).toEqual(SAMPLES);
    expect((await QADataset.load(`${base}/data/moved.jsonl`)).samples).toEqual(SAMPLES);
  });

  it("refuses an answer other than 2xx, naming the status and the URL", async () => {
    const href = `${base}/data/missing.jsonl`;
    const error = await rejection(QADataset.load(href));
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ kind: "unreadable-file", path: href });
    expect(error.message).toBe(`${href}: the server answered HTTP 404 Not Found; expected 2xx`);
    const unavailable = await rejection(QADataset.load(`${base}/data/broken.jsonl`));
    expect(unavailable.message).toContain("HTTP 503 Service Unavailable");
  });

  it("names the URL, not a temporary file, in errors and warnings about the content", async () => {
    const href = `${base}/data/bad.jsonl`;
    const error = await rejection(QADataset.load(href));
    expect(error).toMatchObject({ kind: "invalid-input" });
    expect(error.message.startsWith(`${href}: line 3`)).toBe(true);
    expect(error.message).not.toContain(tmpdir());
    const noGold = await QADataset.load(`${base}/data/no-gold.jsonl`);
    expect(noGold.warnings.length).toBeGreaterThan(0);
    for (const warning of noGold.warnings) {
      expect(warning.startsWith(`${base}/data/no-gold.jsonl: `)).toBe(true);
    }
  });

  it("says a URL without a known suffix is an unsupported format, naming the URL", async () => {
    const error = await rejection(QADataset.load(`${base}/data/noext`));
    expect(error.message.startsWith(`${base}/data/noext: unsupported dataset format`)).toBe(true);
  });

  it("gives a stalled download up after timeoutMs", async () => {
    const href = `${base}/data/stalls.jsonl`;
    const error = await rejection(QADataset.load(href, { timeoutMs: 150 }));
    expect(error).toMatchObject({ kind: "unreadable-file", path: href });
    expect(error.message).toContain("no progress for 150 ms");
  });

  it("rejects with the signal's reason when it aborts, and leaves no temporary file", async () => {
    const before = await downloadDirs();
    const controller = new AbortController();
    const reason = new Error("stop");
    const loading = QADataset.load(`${base}/data/stalls.jsonl`, {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(reason), 50);
    expect(await rejection(loading)).toBe(reason);
    const after = await downloadDirs();
    expect([...after].filter((d) => !before.has(d))).toEqual([]);
    // Already aborted: nothing is fetched.
    const aborted = AbortSignal.abort(reason);
    expect(await rejection(QADataset.load(`${base}/data/eval.jsonl`, { signal: aborted }))).toBe(
      reason,
    );
  });

  it("says when the host cannot be reached", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const href = `http://127.0.0.1:${port}/eval.jsonl`;
    const error = await rejection(QADataset.load(href));
    expect(error).toMatchObject({ kind: "unreadable-file", path: href });
    expect(error.message).toBe(`${href}: could not download: ECONNREFUSED`);
  });
});

describe("QADataset.load of a file: URL", () => {
  it("loads as its path, as a URL object or a string", async () => {
    const path = await tempFile("eval.jsonl", JSONL);
    const url = pathToFileURL(path);
    const fromObject = await QADataset.load(url);
    expect(fromObject.samples).toEqual(SAMPLES);
    expect(fromObject.source).toBe(path);
    expect((await QADataset.load(url.href)).samples).toEqual(SAMPLES);
  });

  it("refuses a file: URL of another host", async () => {
    const error = await rejection(QADataset.load(new URL("file://server/share/eval.jsonl")));
    expect(error).toMatchObject({ kind: "invalid-option", option: "path" });
  });
});

describe("QADataset.load's URL options", () => {
  it("refuses another scheme, pointing hf: to fromHuggingFace", async () => {
    const error = await rejection(QADataset.load(new URL("ftp://example.org/eval.jsonl")));
    expect(error).toMatchObject({ kind: "invalid-option", option: "path" });
    const hf = await rejection(QADataset.load(new URL("hf://datasets/squad")));
    expect(hf.message).toContain("QADataset.fromHuggingFace");
  });

  it("refuses a timeoutMs or signal of the wrong kind before any work", async () => {
    for (const timeoutMs of [0, -1, Number.NaN, 2 ** 31, "100"]) {
      const error = await rejection(
        QADataset.load(`${base}/data/eval.jsonl`, { timeoutMs: timeoutMs as number }),
      );
      expect(error).toMatchObject({ kind: "invalid-option", option: "timeoutMs" });
    }
    const error = await rejection(
      QADataset.load(`${base}/data/eval.jsonl`, { signal: {} as AbortSignal }),
    );
    expect(error).toMatchObject({ kind: "invalid-option", option: "signal" });
  });

  it("refuses a URL string that does not parse", async () => {
    const error = await rejection(QADataset.load("http://exa mple.org/eval.jsonl"));
    expect(error).toMatchObject({ kind: "invalid-option", option: "path" });
  });
});
