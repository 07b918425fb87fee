import { open } from "node:fs/promises";

/**
 * How many bytes of text a regular file holds: its size, or for a gzip file (the loaders read
 * `.gz` and any file that starts with gzip's magic bytes) the size its trailer records
 * uncompressed, which is what the parsers work through. `undefined` for anything but a regular
 * file (a pipe, a missing path: the loaders report those).
 *
 * The trailer holds the size modulo 2³² of the last member only, so this is an estimate for
 * sizing work, never for reading: past 4 GiB, or for a file of many gzip members, it may be low,
 * and is then at least the compressed size.
 */
export async function inputSize(path: string): Promise<number | undefined> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(path, "r");
    const info = await handle.stat();
    if (!info.isFile()) return undefined;
    const size = info.size;
    if (size < 18) return size; // a gzip header and trailer alone take 18 bytes
    const magic = Buffer.alloc(2);
    await handle.read(magic, 0, 2, 0);
    if (magic[0] !== 0x1f || magic[1] !== 0x8b) return size;
    const trailer = Buffer.alloc(4);
    await handle.read(trailer, 0, 4, size - 4);
    return Math.max(size, trailer.readUInt32LE(0));
  } catch {
    return undefined;
  } finally {
    await handle?.close().catch(() => {});
  }
}

/**
 * The text sizes of `eval`'s two inputs (see {@link inputSize}), read once, when the record path
 * decides whether the run is worth a worker thread.
 */
export class InputSizes {
  #sizes: Promise<{ qrels: number | undefined; run: number | undefined }> | undefined;

  constructor(
    private readonly qrels: string,
    private readonly run: string,
  ) {}

  get(): Promise<{ qrels: number | undefined; run: number | undefined }> {
    this.#sizes ??= Promise.all([inputSize(this.qrels), inputSize(this.run)]).then(
      ([qrels, run]) => ({ qrels, run }),
    );
    return this.#sizes;
  }
}
