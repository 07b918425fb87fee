import { closeSync, constants as fsConstants, openSync } from "node:fs";
import { truncate } from "node:fs/promises";
import { dirname } from "node:path";
import { ConfigurationError } from "../errors.js";
import { sampleToJson } from "../result/encode-result.js";
import type { SampleResult } from "../types.js";
import { makeDirectory, systemReason } from "./atomic-write.js";
import { JOURNAL_FORMAT, type JournalHeader, type RecoveredJournal } from "./journal.js";
import { type WriteSync, writeAllSync } from "./write-all.js";

/**
 * Appends finished samples to a journal, one line each, in the order they finish.
 *
 * Each line is written synchronously when its sample finishes: once a sample counts as finished,
 * its line is in the operating system's hands, so a SIGKILL the next instant cannot lose it. A
 * short write is followed by another until the whole line is written; the system's error on one
 * (a full disk, a file size limit) makes {@link JournalWriter.append} throw, and every later
 * append does nothing.
 *
 * The file is always open in append mode, and each line is one write: two runs appending to one
 * journal at once (a resumed run beside a fresh one) interleave whole lines, never overwrite each
 * other's. A new journal is created exclusively, so two runs cannot both start it.
 */
export class JournalWriter {
  private fd: number | undefined;
  private failure: unknown;
  /** Lines of finished samples this writer wrote whole. */
  private written = 0;

  private constructor(
    private readonly path: string,
    private readonly write: WriteSync | undefined,
  ) {}

  /**
   * Opens the journal for appending, writing the header when it is new and cutting a torn tail.
   * `write` replaces the system's write call (tests hand in one that returns short counts).
   */
  static async open(
    path: string,
    header: JournalHeader,
    recovered: RecoveredJournal,
    write?: WriteSync,
  ): Promise<JournalWriter> {
    const writer = new JournalWriter(path, write);
    const resume = recovered.exists && recovered.validBytes > 0;
    const { O_APPEND, O_CREAT, O_EXCL, O_TRUNC, O_WRONLY } = fsConstants;
    try {
      await makeDirectory(dirname(path));
      // Cut only a torn tail: lines another run appended since the read are left alone.
      if (resume && recovered.readBytes > recovered.validBytes) {
        await truncate(path, recovered.validBytes);
      }
      const flags = resume
        ? O_WRONLY | O_APPEND
        : recovered.exists
          ? O_WRONLY | O_CREAT | O_TRUNC | O_APPEND // a torn header only: start it again
          : O_WRONLY | O_CREAT | O_EXCL | O_APPEND;
      try {
        writer.fd = openSync(path, flags);
      } catch (error) {
        if ((error as { code?: unknown }).code === "EEXIST") {
          throw new ConfigurationError(
            `${path}: another run created this checkpoint journal while this one was starting; two runs must not start one journal at once (give each its own checkpoint path, or resume once the other has begun)`,
            { kind: "journal-in-use", path, cause: error },
          );
        }
        throw error;
      }
      if (!resume) {
        const line = JSON.stringify({
          journal: JOURNAL_FORMAT,
          name: header.name,
          dataset_fingerprint: header.fingerprint,
          dataset_size: header.size,
          metrics: header.metrics,
          shard: header.shard,
          ...((header.trials ?? 1) > 1 ? { trials: header.trials } : {}),
        });
        writeAllSync(writer.fd, Buffer.from(`${line}\n`, "utf8"), write);
      }
    } catch (error) {
      if (writer.fd !== undefined) closeSync(writer.fd);
      if (ConfigurationError.isInstance(error)) throw error;
      throw new ConfigurationError(
        `${path}: cannot write the checkpoint journal: ${systemReason(error)}; no sample has run`,
        { kind: "unwritable-file", path, cause: error },
      );
    }
    return writer;
  }

  /** Lines of finished samples written whole by this writer (a resume's earlier ones not counted). */
  get linesWritten(): number {
    return this.written;
  }

  /** The first write failure, when one happened. */
  get failed(): unknown {
    return this.failure;
  }

  /**
   * Appends one finished sample's line, whole.
   *
   * @throws {ConfigurationError} when the line cannot be written whole (its `cause` is the
   * system's error); later calls do nothing. What reached the file of that line is a torn line,
   * which a resume drops.
   */
  append(index: number, sample: SampleResult, trial?: number): void {
    if (this.failure !== undefined || this.fd === undefined) return;
    const entry =
      trial === undefined
        ? { index, sample: sampleToJson(sample) }
        : { index, trial, sample: sampleToJson(sample) };
    const line = Buffer.from(`${JSON.stringify(entry)}\n`, "utf8");
    try {
      writeAllSync(this.fd, line, this.write);
      this.written++;
    } catch (error) {
      this.failure = error;
      throw new ConfigurationError(
        `${this.path}: cannot write the checkpoint journal: ${systemReason(error)}`,
        { kind: "unwritable-file", path: this.path, cause: error },
      );
    }
  }

  /** Closes the file. */
  async close(): Promise<void> {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
