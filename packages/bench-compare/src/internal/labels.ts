const SUPERSCRIPT: Readonly<Record<string, string>> = {
  a: "ᵃ",
  b: "ᵇ",
  c: "ᶜ",
  d: "ᵈ",
  e: "ᵉ",
  f: "ᶠ",
  g: "ᵍ",
  h: "ʰ",
  i: "ⁱ",
  j: "ʲ",
  k: "ᵏ",
  l: "ˡ",
  m: "ᵐ",
  n: "ⁿ",
  o: "ᵒ",
  p: "ᵖ",
  // Unicode has no superscript q in its older blocks; U+107A5 (Unicode 14) is the modifier letter.
  q: "𐞥",
  r: "ʳ",
  s: "ˢ",
  t: "ᵗ",
  u: "ᵘ",
  v: "ᵛ",
  w: "ʷ",
  x: "ˣ",
  y: "ʸ",
  z: "ᶻ",
};

/** Run labels like ranx's: a, b, … z, then aa, ab, … (spreadsheet columns, lower case). */
export function runLabel(index: number): string {
  let n = index + 1;
  let out = "";
  while (n > 0) {
    const r = (n - 1) % 26;
    out = String.fromCharCode(97 + r) + out;
    n = Math.floor((n - 1) / 26);
  }
  return out;
}

/** The label in Unicode superscript letters. */
export function superscript(label: string): string {
  let out = "";
  for (const ch of label) out += SUPERSCRIPT[ch] ?? ch;
  return out;
}
