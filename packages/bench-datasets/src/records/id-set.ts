/**
 * The sample ids seen so far, to refuse a duplicate: an open-addressing table of FNV-1a hashes
 * over the ids' UTF-16 code units, the strings compared only when hashes match. Cheaper than a
 * `Set<string>` on the cells papaparse slices out of a chunk (see bench/README.md, issue 31).
 */
export class IdSet {
  private slots = new Int32Array(1024);
  private hashes = new Int32Array(512);
  private readonly ids: string[] = [];

  /** Adds `id`; false when it was already there. */
  add(id: string): boolean {
    let h = -2128831035;
    for (let k = 0; k < id.length; k++) h = Math.imul(h ^ id.charCodeAt(k), 16777619);
    const slots = this.slots;
    const mask = slots.length - 1;
    let slot = h & mask;
    for (;;) {
      const entry = slots[slot] as number;
      if (entry === 0) break;
      const j = entry - 1;
      if (this.hashes[j] === h && this.ids[j] === id) return false;
      slot = (slot + 1) & mask;
    }
    const n = this.ids.length;
    if (n === this.hashes.length) {
      const grown = new Int32Array(n * 2);
      grown.set(this.hashes);
      this.hashes = grown;
    }
    this.hashes[n] = h;
    this.ids.push(id);
    slots[slot] = n + 1;
    if ((n + 1) * 2 > slots.length) this.rehash();
    return true;
  }

  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    for (let j = 0; j < this.ids.length; j++) {
      let slot = (this.hashes[j] as number) & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = j + 1;
    }
    this.slots = slots;
  }
}
