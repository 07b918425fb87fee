import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ConfigurationError } from "@fastrag/bench-core";
import { parquetWriteBuffer } from "hyparquet-writer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rejection } from "../__fixtures__/helpers.js";
import { QADataset } from "../qa-dataset.js";

// A stand-in for datasets-server.huggingface.co on 127.0.0.1, answering with the real API's
// response shapes: GET /parquet?dataset=… → {parquet_files: [{dataset, config, split, url,
// filename, size}], pending, failed, partial}; errors → {error: "…"}.
const shard = (ids: string[], questions: string[]) =>
  new Uint8Array(
    parquetWriteBuffer({
      columnData: [
        { name: "id", data: ids, type: "STRING" },
        { name: "title", data: ids.map(() => "T"), type: "STRING" },
        { name: "question", data: questions, type: "STRING" },
        {
          name: "answers",
          data: questions.map((_, i) => ({ text: [`answer ${i}`], answer_start: [i] })),
        },
      ],
    }),
  );

const files: Record<string, Uint8Array> = {
  "plain_text/validation/0000.parquet": shard(["a1", "a2"], ["Who?", "What?"]),
  "plain_text/validation/0001.parquet": shard(["a3"], ["When?"]),
  "plain_text/train/0000.parquet": shard(["t1"], ["Train?"]),
  "other/test/0000.parquet": shard(["o1"], ["Other?"]),
};

let server: Server;
let base: string;
const seen: { url: string; authorization?: string }[] = [];

function listing(dataset: string, config: string | null) {
  const entries = Object.entries(files)
    .map(([path, bytes]) => {
      const [cfg, split, filename] = path.split("/") as [string, string, string];
      return {
        dataset,
        config: cfg,
        split,
        url: `${base}/datasets/${dataset}/resolve/refs%2Fconvert%2Fparquet/${cfg}/${split}/${filename}`,
        filename,
        size: bytes.byteLength,
      };
    })
    .filter((e) => config === null || e.config === config)
    .reverse(); // the API's order is not the shard order
  return { parquet_files: entries, pending: [], failed: [], partial: dataset === "org/partial" };
}

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res) => {
    const url = new URL(req.url ?? "/", base);
    seen.push({
      url: req.url ?? "",
      ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
    });
    if (url.pathname === "/parquet") {
      const dataset = url.searchParams.get("dataset") ?? "";
      if (dataset === "org/slow") return; // never answers
      if (dataset === "org/stall") {
        const entry = {
          dataset,
          config: "default",
          split: "test",
          url: `${base}/stall.parquet`,
          filename: "0000.parquet",
          size: 1000,
        };
        res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ parquet_files: [entry], pending: [], failed: [], partial: false }));
        return;
      }
      if (dataset === "org/garbled") {
        res.writeHead(200, { "content-type": "application/json" }).end("{not json");
        return;
      }
      if (!dataset.startsWith("org/")) {
        res
          .writeHead(404, { "content-type": "application/json" })
          .end(JSON.stringify({ error: "The dataset does not exist." }));
        return;
      }
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify(listing(dataset, url.searchParams.get("config"))));
      return;
    }
    if (url.pathname === "/stall.parquet") {
      res.writeHead(200, { "content-type": "application/octet-stream" });
      res.write(new Uint8Array(100)); // then nothing more: a stalled download
      return;
    }
    const match = /^\/datasets\/org\/[^/]+\/resolve\/([^/]+)\/(.+)$/.exec(url.pathname);
    const bytes = match ? files[match[2]!] : undefined;
    if (bytes === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": "application/octet-stream" }).end(bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe("QADataset.fromHuggingFace", () => {
  it("lists the Parquet export, downloads the split's shards in order and reads them", async () => {
    const dataset = await QADataset.fromHuggingFace("org/squadish", {
      baseUrl: base,
      config: "plain_text",
      split: "validation",
    });
    expect(dataset.samples).toEqual([
      {
        id: "a1",
        question: "Who?",
        expectedAnswers: ["answer 0"],
        relevantIds: [],
        metadata: { title: "T" },
      },
      {
        id: "a2",
        question: "What?",
        expectedAnswers: ["answer 1"],
        relevantIds: [],
        metadata: { title: "T" },
      },
      {
        id: "a3",
        question: "When?",
        expectedAnswers: ["answer 0"],
        relevantIds: [],
        metadata: { title: "T" },
      },
    ]);
    expect(dataset.source).toBe("hf://org/squadish");
    expect(seen.some((s) => s.url === "/parquet?dataset=org%2Fsquadish&config=plain_text")).toBe(
      true,
    );
  });

  it("defaults to the test split, and lists the splits when there is none", async () => {
    const other = await QADataset.fromHuggingFace("org/squadish", {
      baseUrl: base,
      config: "other",
    });
    expect(other.samples.map((s) => s.id)).toEqual(["o1"]);
    const error = await rejection(
      QADataset.fromHuggingFace("org/squadish", { baseUrl: base, config: "plain_text" }),
    );
    expect(error.message).toMatch(
      /has no "test" split; choose one of (validation, train|train, validation) with options.split/,
    );
    expect(
      (
        await rejection(
          QADataset.fromHuggingFace("org/squadish", {
            baseUrl: base,
            config: "plain_text",
            split: "dev",
          }),
        )
      ).message,
    ).toMatch(/has no split "dev"; splits: /);
    expect(
      (await rejection(QADataset.fromHuggingFace("org/squadish", { baseUrl: base }))).message,
    ).toMatch(
      /several configs \((other, plain_text|plain_text, other)\); choose one with options.config/,
    );
  });

  it("resolves the files at a pinned revision and sends the token to the Hub host only", async () => {
    seen.length = 0;
    await QADataset.fromHuggingFace("org/squadish", {
      baseUrl: base,
      config: "other",
      revision: "abc123",
      token: "hf_secret",
    });
    expect(seen.map((s) => s.url)).toEqual([
      "/parquet?dataset=org%2Fsquadish&config=other",
      "/datasets/org/squadish/resolve/abc123/other/test/0000.parquet",
    ]);
    expect(seen.every((s) => s.authorization === "Bearer hf_secret")).toBe(true);
  });

  it("warns when the Hub exported only part of the dataset", async () => {
    const dataset = await QADataset.fromHuggingFace("org/partial", {
      baseUrl: base,
      config: "other",
    });
    expect(dataset.warnings).toEqual([
      expect.stringMatching(/exported only part of this dataset .*partial: true/),
    ]);
  });

  it("uses an injected fetch", async () => {
    const calls: string[] = [];
    const fetcher: typeof fetch = async (input, init) => {
      calls.push(String(input));
      return fetch(input, init);
    };
    await QADataset.fromHuggingFace("org/squadish", {
      baseUrl: base,
      config: "other",
      fetch: fetcher,
    });
    expect(calls).toHaveLength(2);
  });

  it("turns HTTP errors, bad JSON, timeouts and unreachable hosts into clear ConfigurationErrors", async () => {
    const missing = await rejection(QADataset.fromHuggingFace("nobody/nothing", { baseUrl: base }));
    expect(ConfigurationError.isInstance(missing)).toBe(true);
    expect(missing.message).toMatch(
      /answered HTTP 404: The dataset does not exist\. \(no such dataset/,
    );

    const garbled = await rejection(QADataset.fromHuggingFace("org/garbled", { baseUrl: base }));
    expect(garbled.message).toMatch(/answered with invalid JSON/);

    const slow = await rejection(
      QADataset.fromHuggingFace("org/slow", { baseUrl: base, timeoutMs: 200 }),
    );
    expect(ConfigurationError.isInstance(slow)).toBe(true);
    expect(slow.message).toMatch(
      /no progress from .* for 200 ms: no answer, or a stalled download \(no network\?/,
    );

    // Long enough that the listing before the download cannot time out on a loaded machine.
    const stalled = await rejection(
      QADataset.fromHuggingFace("org/stall", { baseUrl: base, timeoutMs: 3_000 }),
    );
    expect(ConfigurationError.isInstance(stalled)).toBe(true);
    expect(stalled.message).toMatch(/no progress from .*\/stall\.parquet for 3000 ms/);

    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const refused = await rejection(
      QADataset.fromHuggingFace("org/x", { baseUrl: `http://127.0.0.1:${port}` }),
    );
    expect(ConfigurationError.isInstance(refused)).toBe(true);
    expect(refused.message).toMatch(
      /could not reach http:\/\/127\.0\.0\.1:\d+\/parquet\?dataset=org%2Fx: ECONNREFUSED/,
    );
  });

  it("rejects with the caller's abort reason", async () => {
    const controller = new AbortController();
    const pending = QADataset.fromHuggingFace("org/slow", {
      baseUrl: base,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(new Error("user stop")), 20);
    expect((await rejection(pending)).message).toBe("user stop");
  });

  it("checks its arguments", async () => {
    expect((await rejection(QADataset.fromHuggingFace("not a repo"))).message).toMatch(
      /expected a dataset name/,
    );
    expect((await rejection(QADataset.fromHuggingFace("org/x", { timeoutMs: 0 }))).message).toMatch(
      /timeoutMs must be a positive number/,
    );
  });
});
