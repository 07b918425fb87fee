import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { clip, escapeHtml } from "./escape.js";

describe("escapeHtml", () => {
  it("escapes the five characters that matter in content and quoted attributes", () => {
    expect(escapeHtml(`<img src=x onerror="alert('1')">&`)).toBe(
      "&lt;img src=x onerror=&quot;alert(&#39;1&#39;)&quot;&gt;&amp;",
    );
    expect(escapeHtml("</script>")).toBe("&lt;/script&gt;");
    expect(escapeHtml("plain text, ünïcødé ✓")).toBe("plain text, ünïcødé ✓");
  });

  it("never leaves a markup character, and decoding gives the text back", () => {
    const decode = (s: string) =>
      s
        .replace(/&lt;/g, "<")
        .replace(/&gt;/g, ">")
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'")
        .replace(/&amp;/g, "&");
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        const out = escapeHtml(text);
        expect(out).not.toMatch(/[<>"']/);
        expect(out.replace(/&(amp|lt|gt|quot|#39);/g, "")).not.toContain("&");
        expect(decode(out)).toBe(text);
      }),
    );
  });
});

describe("clip", () => {
  it("keeps short text and cuts long text to max characters ending in an ellipsis", () => {
    expect(clip("abc", 3)).toBe("abc");
    expect(clip("abcdef", 4)).toBe("abc…");
    // Code points, not UTF-16 units: a cut never splits a surrogate pair.
    expect(clip("😀😀😀", 3)).toBe("😀😀😀");
    expect(clip("😀😀😀😀", 3)).toBe("😀😀…");
  });
});
