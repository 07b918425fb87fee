// A dataset named by a URL. A `file:` URL is a path. An `http:`/`https:` URL's body is streamed
// with fetch into a temporary file named as the URL's last path segment, which the file readers
// then read as any other path (a reader is chosen by suffix, gzip is recognised by content, and
// Parquet needs random access, so every format reads the same way), and the file is deleted
// after. Messages and warnings name the URL, never the temporary file.
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigurationError } from "@fastrag/bench-core";
import { messageOf } from "../records/problems.js";

/** How long a download may make no progress (no answer, no bytes) before it fails. */
export const DEFAULT_URL_TIMEOUT_MS = 30_000;

/** True for a `URL` object, from this realm or another (a worker's, a test runner's). */
export function isUrlObject(value: unknown): value is URL {
  return value instanceof URL || Object.prototype.toString.call(value) === "[object URL]";
}

/** A string that is a URL for `load`: `file://…`, `http://…` or `https://…` (any case). */
const URL_STRING = /^(?:file|https?):\/\//i;

/**
 * The URL that `QADataset.load`'s argument names: a `URL` object, or a string written as a
 * `file:`, `http:` or `https:` URL; `undefined` for a path.
 *
 * @throws {ConfigurationError} (`invalid-option`, option `path`) for a string that does not parse.
 */
export function urlOf(input: string | URL): URL | undefined {
  if (isUrlObject(input)) return new URL(input.href);
  if (!URL_STRING.test(input)) return undefined;
  try {
    return new URL(input);
  } catch (error) {
    throw new ConfigurationError(`QADataset.load: ${JSON.stringify(input)} is not a valid URL`, {
      kind: "invalid-option",
      option: "path",
      cause: error,
    });
  }
}

/**
 * The path of a `file:` URL.
 *
 * @throws {ConfigurationError} (`invalid-option`, option `path`) for a URL that names no local
 *   file (a host other than `localhost`, an encoded `/`).
 */
export function pathOfFileUrl(url: URL): string {
  try {
    return fileURLToPath(url);
  } catch (error) {
    throw new ConfigurationError(
      `QADataset.load: ${url.href} names no local file (${messageOf(error)}); expected file:///absolute/path`,
      { kind: "invalid-option", option: "path", cause: error },
    );
  }
}

/** The options of a download. */
export interface DownloadOptions {
  /** Aborts the download: the load then rejects with `signal.reason`. */
  readonly signal: AbortSignal | undefined;
  /** How long the server may send nothing (no answer, no bytes) before the load fails. */
  readonly timeoutMs: number;
}

/**
 * Streams the body of an `http:`/`https:` URL into a temporary file, calls `read` with that
 * file's path, and deletes it, whatever `read` does. A `ConfigurationError` from `read` is thrown
 * again with the URL in place of the temporary path; `relabel` does the same for what `read`
 * returns (its warnings, its source).
 *
 * @throws {ConfigurationError} (`unreadable-file`, `path` the URL) for an answer other than 2xx
 *   (naming the status), a host that cannot be reached, or no progress for `timeoutMs`;
 *   (`invalid-option`) for another scheme. Rejects with `signal.reason` when `signal` aborts.
 */
export async function withDownload<T>(
  url: URL,
  options: DownloadOptions,
  read: (path: string) => Promise<T>,
  relabel: (value: T, rename: (text: string) => string) => T,
): Promise<T> {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    const hint =
      url.protocol === "hf:" ? "; for the Hugging Face Hub, use QADataset.fromHuggingFace" : "";
    throw new ConfigurationError(
      `QADataset.load: ${url.href}: unsupported URL scheme "${url.protocol}"; expected a file path, a file: URL or an http(s): URL${hint}`,
      { kind: "invalid-option", option: "path" },
    );
  }
  options.signal?.throwIfAborted();
  const dir = await mkdtemp(join(tmpdir(), "fastrag-bench-url-"));
  const path = join(dir, fileNameOf(url));
  const href = url.href;
  const rename = (text: string) => text.split(path).join(href);
  try {
    await download(url, path, options);
    let value: T;
    try {
      value = await read(path);
    } catch (error) {
      if (!ConfigurationError.isInstance(error)) throw error;
      throw renamedError(error, rename);
    }
    return relabel(value, rename);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The URL's last path segment, decoded, as a file name (`download` when there is none). */
function fileNameOf(url: URL): string {
  const segment = url.pathname.slice(url.pathname.lastIndexOf("/") + 1);
  let name: string;
  try {
    name = decodeURIComponent(segment);
  } catch {
    name = segment;
  }
  // No directories, and short enough for any file system.
  name = name.replace(/[/\\\0]/g, "_").slice(-200);
  return name === "" || name === "." || name === ".." ? "download" : name;
}

/** The error again, with the URL in place of the temporary file in its message and path. */
function renamedError(error: ConfigurationError, rename: (text: string) => string): Error {
  return new ConfigurationError(rename(error.message), {
    kind: error.kind,
    option: error.option,
    path: error.path === undefined ? undefined : rename(error.path),
    line: error.line,
    column: error.column,
    field: error.field,
    cause: error,
  });
}

/** Streams the body of `url` into the file `path`, with the inactivity limit and the signal. */
async function download(url: URL, path: string, options: DownloadOptions): Promise<void> {
  const href = url.href;
  const controller = new AbortController();
  const timeout = new Error(`no progress for ${options.timeoutMs} ms`);
  let timer = setTimeout(() => controller.abort(timeout), options.timeoutMs);
  const touch = () => {
    clearTimeout(timer);
    timer = setTimeout(() => controller.abort(timeout), options.timeoutMs);
  };
  const signal = options.signal;
  const onAbort = () => controller.abort(signal?.reason);
  signal?.addEventListener("abort", onAbort, { once: true });
  // Aborted while the temporary directory was made: the event has fired already.
  if (signal?.aborted) controller.abort(signal.reason);
  const file = await open(path, "w");
  try {
    const response = await fetch(href, { signal: controller.signal });
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      const status = `${response.status}${response.statusText === "" ? "" : ` ${response.statusText}`}`;
      throw new ConfigurationError(`${href}: the server answered HTTP ${status}; expected 2xx`, {
        kind: "unreadable-file",
        path: href,
      });
    }
    touch();
    if (response.body !== null) {
      for await (const chunk of response.body) {
        touch();
        await file.write(chunk);
      }
    }
  } catch (error) {
    if (ConfigurationError.isInstance(error)) throw error;
    if (signal?.aborted) throw signal.reason;
    if (controller.signal.aborted) {
      throw new ConfigurationError(
        `${href}: no progress for ${options.timeoutMs} ms (no answer, or a stalled download); raise timeoutMs for a slow server`,
        { kind: "unreadable-file", path: href, cause: error },
      );
    }
    const cause = (error as { cause?: { code?: unknown } } | null)?.cause;
    const reason =
      typeof cause?.code === "string" ? cause.code : messageOf((cause as unknown) ?? error);
    throw new ConfigurationError(`${href}: could not download: ${reason}`, {
      kind: "unreadable-file",
      path: href,
      cause: error,
    });
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
    await file.close();
  }
}
