import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inputSize } from "./input-size.js";

describe("inputSize", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "input-size-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("is a plain file's size, and a gzip file's unpacked size whatever its name", async () => {
    // 100,000 lines of 20 bytes: 2,000,000 bytes, which gzip packs to a few kilobytes.
    const text = "1 Q0 D1 1 0.5 tag-x\n".repeat(100_000);
    expect(text.length).toBe(2_000_000);
    const plain = join(dir, "run.txt");
    await writeFile(plain, text);
    const packed = gzipSync(text);
    expect(packed.length).toBeLessThan(100_000);
    const gz = join(dir, "run.txt.gz");
    const unnamed = join(dir, "run-packed");
    await writeFile(gz, packed);
    await writeFile(unnamed, packed);
    expect(await inputSize(plain)).toBe(2_000_000);
    expect(await inputSize(gz)).toBe(2_000_000);
    expect(await inputSize(unnamed)).toBe(2_000_000);
    // Short files and files that merely start like gzip keep their own size.
    const tiny = join(dir, "tiny.txt");
    await writeFile(tiny, "1 0 d 1\n");
    expect(await inputSize(tiny)).toBe(8);
    const fake = join(dir, "fake.gz");
    await writeFile(fake, Buffer.concat([Buffer.from([0x1f, 0x8b]), Buffer.alloc(30)]));
    expect(await inputSize(fake)).toBe(32);
  });

  it("is undefined for a directory or a missing path (the loaders report those)", async () => {
    expect(await inputSize(dir)).toBeUndefined();
    expect(await inputSize(join(dir, "missing.txt"))).toBeUndefined();
  });
});
