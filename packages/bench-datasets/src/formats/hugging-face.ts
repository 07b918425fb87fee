import { ConfigurationError } from "@fastrag/bench-core";
import { describeValue } from "@fastrag/bench-core/internal";
import type { ColumnMapping } from "../records/column-mapping.js";
import { isPlainRecord, messageOf } from "../records/problems.js";
import type { LoadedSamples } from "../records/sample-builder.js";

/** The Hub's dataset-viewer API, which lists the Parquet export of every public dataset. */
export const HUGGING_FACE_VIEWER_URL = "https://datasets-server.huggingface.co";

/** Options of `QADataset.fromHuggingFace`. */
export interface HuggingFaceOptions {
  /** The split to read. Default: `test` when the config has one, else its only split. */
  readonly split?: string;
  /** The config (subset). Default: the dataset's only config, else `default`. */
  readonly config?: string;
  /**
   * A commit of the dataset's `refs/convert/parquet` branch, to pin the Parquet files read. The
   * viewer API itself always lists the latest export; the file URLs are resolved at this commit.
   */
  readonly revision?: string;
  /** Column overrides, as for `QADataset.load`. */
  readonly columns?: ColumnMapping;
  /** The fetch implementation (default: the global `fetch`), e.g. for a proxy or tests. */
  readonly fetch?: typeof fetch;
  /** Base URL of the dataset-viewer API. Default {@link HUGGING_FACE_VIEWER_URL}. */
  readonly baseUrl?: string;
  /** A Hub access token for gated or private datasets, sent only to Hugging Face hosts. */
  readonly token?: string;
  /** Aborts the download. */
  readonly signal?: AbortSignal;
  /**
   * How long a request may go without progress, in milliseconds: no answer, or a download that
   * stalls. A slow download that keeps receiving data is not cut off. Default 30,000.
   */
  readonly timeoutMs?: number;
}

interface ParquetFileEntry {
  readonly config: string;
  readonly split: string;
  readonly url: string;
  readonly filename: string;
}

const REPO = /^[A-Za-z0-9][\w.-]*(\/[A-Za-z0-9][\w.-]*)?$/;

/**
 * Lists a dataset's Parquet export through the viewer API (`GET /parquet?dataset=…`, answering
 * `{parquet_files: [{dataset, config, split, url, filename, size}], partial?}`), downloads the
 * chosen split's files and reads them with hyparquet.
 *
 * @internal Called by `QADataset.fromHuggingFace`.
 */
export async function loadFromHuggingFace(
  repo: string,
  options: HuggingFaceOptions,
): Promise<LoadedSamples> {
  if (typeof repo !== "string" || !REPO.test(repo)) {
    throw new ConfigurationError(
      `QADataset.fromHuggingFace: expected a dataset name such as "rajpurkar/squad_v2", found ${describeValue(repo)}`,
      { kind: "invalid-option", option: "repo" },
    );
  }
  const timeoutMs = options.timeoutMs ?? 30_000;
  if (!(Number.isFinite(timeoutMs) && timeoutMs > 0)) {
    throw new ConfigurationError(
      `QADataset.fromHuggingFace: timeoutMs must be a positive number, found ${describeValue(options.timeoutMs)}`,
      { kind: "invalid-option", option: "timeoutMs" },
    );
  }
  const fetcher = options.fetch ?? globalThis.fetch;
  if (typeof fetcher !== "function") {
    throw new ConfigurationError(
      "QADataset.fromHuggingFace: no fetch implementation; pass options.fetch",
      { kind: "invalid-option", option: "fetch" },
    );
  }
  const base = (options.baseUrl ?? HUGGING_FACE_VIEWER_URL).replace(/\/+$/, "");
  const request = { fetcher, timeoutMs, signal: options.signal, token: options.token, base };

  const listUrl = `${base}/parquet?dataset=${encodeURIComponent(repo)}${options.config === undefined ? "" : `&config=${encodeURIComponent(options.config)}`}`;
  const listing = await getJson(listUrl, request);
  const entries = parseListing(listing, listUrl);
  const config = chooseConfig(entries, options.config, repo);
  const inConfig = entries.filter((e) => e.config === config);
  const split = chooseSplit(inConfig, options.split, repo, config);
  const files = inConfig
    .filter((e) => e.split === split)
    .sort((a, b) => (a.filename < b.filename ? -1 : 1));

  const buffers: { buffer: ArrayBuffer; source: string }[] = [];
  for (const file of files) {
    const url =
      options.revision === undefined
        ? file.url
        : file.url.replace(
            /\/resolve\/refs%2Fconvert%2Fparquet\//,
            `/resolve/${encodeURIComponent(options.revision)}/`,
          );
    buffers.push({ buffer: await getBytes(url, request), source: url });
  }
  const { samplesFromParquet } = await import("./load-parquet.js");
  const loaded = await samplesFromParquet(
    buffers,
    options.columns,
    `hf://${repo}/${config}/${split}`,
  );
  if (isPlainRecord(listing) && listing.partial === true) {
    loaded.warnings.push(
      `hf://${repo}: the Hub exported only part of this dataset to Parquet (partial: true); ${loaded.samples.length} samples were read, not the whole split`,
    );
  }
  return loaded;
}

interface RequestContext {
  readonly fetcher: typeof fetch;
  readonly timeoutMs: number;
  readonly signal: AbortSignal | undefined;
  readonly token: string | undefined;
  readonly base: string;
}

async function request(
  url: string,
  context: RequestContext,
  read: (response: Response, progress: () => void) => Promise<unknown>,
): Promise<unknown> {
  const controller = new AbortController();
  const timeout = new Error(`timed out after ${context.timeoutMs} ms`);
  let timer = setTimeout(() => controller.abort(timeout), context.timeoutMs);
  const touch = () => {
    clearTimeout(timer);
    timer = setTimeout(() => controller.abort(timeout), context.timeoutMs);
  };
  const onAbort = () => controller.abort(context.signal?.reason);
  if (context.signal?.aborted) throw context.signal.reason;
  context.signal?.addEventListener("abort", onAbort, { once: true });
  const headers: Record<string, string> = {};
  if (context.token !== undefined && sameHubHost(url, context.base))
    headers.authorization = `Bearer ${context.token}`;
  try {
    const response = await context.fetcher(url, { signal: controller.signal, headers });
    if (!response.ok) {
      let detail = "";
      try {
        const body: unknown = await response.json();
        if (isPlainRecord(body) && typeof body.error === "string") detail = `: ${body.error}`;
      } catch {
        // a non-JSON error body adds nothing
      }
      const hint =
        response.status === 404
          ? " (no such dataset, config or split, or the viewer has no Parquet export of it)"
          : response.status === 401 || response.status === 403
            ? " (a gated or private dataset needs options.token)"
            : "";
      throw new ConfigurationError(
        `Hugging Face: ${url} answered HTTP ${response.status}${detail}${hint}`,
        { kind: "unreadable-file", path: url },
      );
    }
    touch();
    return await read(response, touch);
  } catch (error) {
    if (ConfigurationError.isInstance(error)) throw error;
    if (context.signal?.aborted) throw context.signal.reason;
    if (controller.signal.aborted) {
      throw new ConfigurationError(
        `Hugging Face: no progress from ${url} for ${context.timeoutMs} ms: no answer, or a stalled download (no network? pass options.baseUrl or options.fetch for a mirror)`,
        { kind: "unreadable-file", path: url, cause: error },
      );
    }
    const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
    const reason = typeof cause?.code === "string" ? cause.code : messageOf(cause ?? error);
    throw new ConfigurationError(
      `Hugging Face: could not reach ${url}: ${reason} (no network? pass options.baseUrl or options.fetch for a mirror)`,
      { kind: "unreadable-file", path: url, cause: error },
    );
  } finally {
    clearTimeout(timer);
    context.signal?.removeEventListener("abort", onAbort);
  }
}

function sameHubHost(url: string, base: string): boolean {
  try {
    const host = new URL(url).hostname;
    return (
      host === new URL(base).hostname ||
      host === "huggingface.co" ||
      host.endsWith(".huggingface.co") ||
      host.endsWith(".hf.co")
    );
  } catch {
    return false;
  }
}

function getJson(url: string, context: RequestContext): Promise<unknown> {
  return request(url, context, async (response) => {
    const text = await response.text();
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new ConfigurationError(
        `Hugging Face: ${url} answered with invalid JSON: ${messageOf(error)}`,
        { kind: "invalid-input", path: url, cause: error },
      );
    }
  });
}

async function getBytes(url: string, context: RequestContext): Promise<ArrayBuffer> {
  return (await request(url, context, async (response, progress) => {
    const reader = response.body?.getReader();
    if (reader === undefined) return response.arrayBuffer();
    // Read chunk by chunk so that every chunk received restarts the inactivity timer.
    const chunks: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      progress();
      chunks.push(value);
      total += value.byteLength;
    }
    const bytes = new Uint8Array(total);
    let offset = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return bytes.buffer;
  })) as ArrayBuffer;
}

function parseListing(listing: unknown, url: string): ParquetFileEntry[] {
  const files = isPlainRecord(listing) ? listing.parquet_files : undefined;
  if (!Array.isArray(files)) {
    throw new ConfigurationError(
      `Hugging Face: ${url} answered without a parquet_files list; found ${describeValue(listing)}`,
      { kind: "invalid-input", path: url, field: "parquet_files" },
    );
  }
  const out: ParquetFileEntry[] = [];
  for (let i = 0; i < files.length; i++) {
    const entry = files[i];
    if (
      !isPlainRecord(entry) ||
      typeof entry.config !== "string" ||
      typeof entry.split !== "string" ||
      typeof entry.url !== "string" ||
      typeof entry.filename !== "string"
    ) {
      throw new ConfigurationError(
        `Hugging Face: ${url}: parquet_files[${i}] lacks config, split, url or filename`,
        { kind: "invalid-input", path: url, field: `parquet_files[${i}]` },
      );
    }
    out.push({
      config: entry.config,
      split: entry.split,
      url: entry.url,
      filename: entry.filename,
    });
  }
  return out;
}

function distinct(values: readonly string[]): string[] {
  return [...new Set(values)];
}

function chooseConfig(
  entries: readonly ParquetFileEntry[],
  wanted: string | undefined,
  repo: string,
): string {
  const configs = distinct(entries.map((e) => e.config));
  if (wanted !== undefined) {
    if (!configs.includes(wanted)) {
      throw new ConfigurationError(
        `Hugging Face: ${repo} has no Parquet export of config "${wanted}"; configs: ${configs.join(", ") || "(none)"}`,
        { kind: "invalid-option", option: "config" },
      );
    }
    return wanted;
  }
  if (configs.length === 1) return configs[0]!;
  if (configs.includes("default")) return "default";
  throw new ConfigurationError(
    `Hugging Face: ${repo} has ${configs.length === 0 ? "no Parquet export" : `several configs (${configs.join(", ")}); choose one with options.config`}`,
    { kind: "invalid-option", option: configs.length === 0 ? "repo" : "config" },
  );
}

function chooseSplit(
  entries: readonly ParquetFileEntry[],
  wanted: string | undefined,
  repo: string,
  config: string,
): string {
  const splits = distinct(entries.map((e) => e.split));
  if (wanted !== undefined) {
    if (!splits.includes(wanted)) {
      throw new ConfigurationError(
        `Hugging Face: ${repo} (config ${config}) has no split "${wanted}"; splits: ${splits.join(", ")}`,
        { kind: "invalid-option", option: "split" },
      );
    }
    return wanted;
  }
  if (splits.includes("test")) return "test";
  if (splits.length === 1) return splits[0]!;
  throw new ConfigurationError(
    `Hugging Face: ${repo} (config ${config}) has no "test" split; choose one of ${splits.join(", ")} with options.split`,
    { kind: "invalid-option", option: "split" },
  );
}
