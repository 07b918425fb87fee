import { writeSync } from "node:fs";

/**
 * One `write(2)`: writes up to `length` bytes of `buffer` from `offset` and returns how many it
 * wrote. A count below `length` with no error is a short write: a disk that filled up, a file size
 * limit (`ulimit -f`), a signal. Node passes it on as it is.
 */
export type WriteSync = (fd: number, buffer: Uint8Array, offset: number, length: number) => number;

/** The asynchronous form of {@link WriteSync} (a `FileHandle.write`). */
export type WriteAsync = (buffer: Uint8Array, offset: number, length: number) => Promise<number>;

/**
 * Writes every byte of `buffer`, looping over short writes. A short write is no error to Node, so
 * a caller that ignores the count keeps a torn file and believes it whole. Whatever stops the loop
 * (the system's error on the next write: ENOSPC, EFBIG, EIO; or a write that makes no progress) is
 * thrown, with `bytesWritten` set to what did reach the file.
 */
export function writeAllSync(
  fd: number,
  buffer: Uint8Array,
  write: WriteSync = defaultWriteSync,
): void {
  let done = 0;
  while (done < buffer.length) {
    let n: number;
    try {
      n = write(fd, buffer, done, buffer.length - done);
    } catch (error) {
      throw withBytesWritten(error, done);
    }
    if (!(n > 0)) throw noProgress(done, buffer.length);
    done += n;
  }
}

/** {@link writeAllSync} for a `FileHandle`: every byte, or a thrown error. */
export async function writeAll(buffer: Uint8Array, write: WriteAsync): Promise<void> {
  let done = 0;
  while (done < buffer.length) {
    let n: number;
    try {
      n = await write(buffer, done, buffer.length - done);
    } catch (error) {
      throw withBytesWritten(error, done);
    }
    if (!(n > 0)) throw noProgress(done, buffer.length);
    done += n;
  }
}

function defaultWriteSync(fd: number, buffer: Uint8Array, offset: number, length: number): number {
  return writeSync(fd, buffer, offset, length);
}

function withBytesWritten(error: unknown, done: number): unknown {
  if (typeof error === "object" && error !== null && !Object.isFrozen(error)) {
    try {
      Object.defineProperty(error, "bytesWritten", { value: done, configurable: true });
    } catch {
      // An exotic error object keeps its own shape.
    }
  }
  return error;
}

/** A write that returned 0 without an error: the loop would spin forever. Reported as EIO. */
function noProgress(done: number, total: number): Error {
  return Object.assign(
    new Error(`the system wrote ${done} of ${total} bytes and then accepted no more`),
    { code: "EIO", syscall: "write", bytesWritten: done },
  );
}
