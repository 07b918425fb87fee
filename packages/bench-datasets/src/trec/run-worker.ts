// Runs on a worker thread for `TrecRun.load(path, { thread: true })`: parses the run and sends
// its columns back, the typed arrays transferred rather than copied.
import { parentPort, workerData } from "node:worker_threads";
import { ConfigurationError, type ConfigurationErrorKind } from "@fastrag/bench-core";
import { feedFile } from "../io/files.js";
import { type RunColumns, RunParser } from "./run-parser.js";

/** What the worker posts: the parsed columns, or the error that stopped it. */
export type RunWorkerMessage =
  | { readonly columns: RunColumns }
  | {
      readonly error: {
        readonly message: string;
        /** A ConfigurationError's kind and fields (not its cause); undefined for another error. */
        readonly configuration:
          | {
              readonly kind: ConfigurationErrorKind;
              readonly path?: string;
              readonly line?: number;
              readonly column?: number;
              readonly field?: string;
            }
          | undefined;
        /** The system error code of the cause (ENOENT, EISDIR…), when there is one. */
        readonly code: string | undefined;
      };
    };

const port = parentPort;
if (port !== null) {
  const path = (workerData as { path: string }).path;
  try {
    const parser = new RunParser(path);
    await feedFile(path, parser);
    parser.finish();
    const columns = parser.columns();
    const buffers = new Set<ArrayBuffer>();
    for (const a of [parser.starts, parser.docIds, parser.scores]) {
      if (a.buffer instanceof ArrayBuffer) buffers.add(a.buffer);
    }
    port.postMessage({ columns } satisfies RunWorkerMessage, [...buffers]);
  } catch (error) {
    port.postMessage({
      error: {
        message: error instanceof Error ? error.message : String(error),
        configuration: ConfigurationError.isInstance(error)
          ? {
              kind: error.kind,
              ...(error.path !== undefined ? { path: error.path } : {}),
              ...(error.line !== undefined ? { line: error.line } : {}),
              ...(error.column !== undefined ? { column: error.column } : {}),
              ...(error.field !== undefined ? { field: error.field } : {}),
            }
          : undefined,
        code: codeOf(error),
      },
    } satisfies RunWorkerMessage);
  }
}

function codeOf(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") return code;
    e = e.cause;
  }
  return undefined;
}
