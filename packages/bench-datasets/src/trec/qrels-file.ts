import { open } from "node:fs/promises";
import { basename } from "node:path";
import { gunzipHead, isGzip } from "../io/gzip.js";

/** A file named as TREC qrels usually are: `qrels.test`, `qrels-dev.txt`, `robust04.qrels`. */
export function isQrelsName(path: string): boolean {
  const name = basename(path).toLowerCase();
  return /(?:^|[._-])qrels(?:[._-]|$)/.test(name);
}

/**
 * Whether a file reads as TREC qrels: its first non-blank line has four whitespace-separated
 * fields, the second an iteration number (`0`, or `Q0` as some files have it) and the last a whole
 * grade, as in `301 0 FR940202-2-00009 1` (a line of text such as "population of china 2020" is
 * not). Only the file's first 4 KiB are read; a file that cannot be read is not qrels (the caller
 * then reports it as the format its suffix names, or as unsupported).
 */
export async function looksLikeQrels(path: string): Promise<boolean> {
  let head: string;
  try {
    const file = await open(path, "r");
    try {
      const buffer = Buffer.alloc(4096);
      const { bytesRead } = await file.read(buffer, 0, buffer.length, 0);
      const bytes = isGzip(buffer, bytesRead)
        ? gunzipHead(buffer.subarray(0, bytesRead))
        : buffer.subarray(0, bytesRead);
      head = bytes.toString("latin1");
    } finally {
      await file.close();
    }
  } catch {
    return false;
  }
  const line = head.split("\n").find((l) => l.trim() !== "");
  if (line === undefined) return false;
  const fields = line.trim().split(/\s+/);
  return (
    fields.length === 4 &&
    /^(?:\d+|Q0)$/.test(fields[1] as string) &&
    /^[-+]?\d+$/.test(fields[3] as string)
  );
}
