import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ConfigurationError } from "../errors.js";
import { decodeUtf8 } from "./text.js";

describe("decodeUtf8", () => {
  it("decodes any text as TextDecoder does, ASCII-only (read as Latin-1) or not", () => {
    const reference = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
    const check = (text: string) => {
      const bytes = Buffer.from(text, "utf8");
      const expected = reference.decode(bytes);
      expect(decodeUtf8(bytes, "t")).toBe(
        expected.charCodeAt(0) === 0xfeff ? expected.slice(1) : expected,
      );
    };
    fc.assert(fc.property(fc.string({ unit: "binary-ascii", maxLength: 300 }), check));
    fc.assert(fc.property(fc.string({ unit: "grapheme", maxLength: 100 }), check));
    check("");
    check("\u007f\u0000plain ascii\n");
    check("\u0080 is the first byte beyond ASCII");
    check("\ufeffa BOM is dropped");
    check("é, 東京, 🙂");
  });

  it("refuses invalid UTF-8, naming the line", () => {
    const bytes = Buffer.from([0x61, 0x0a, 0x62, 0xff, 0x63]);
    expect(() => decodeUtf8(bytes, "file.json")).toThrow(ConfigurationError);
    expect(() => decodeUtf8(bytes, "file.json")).toThrow(
      /^file.json: line 2, column 2: invalid UTF-8 at byte 3 \(found 0xff\)/,
    );
  });
});
