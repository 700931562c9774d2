// A hash table from pieces of text to token ids, looked up by (text, start, end) so that the common
// case, a piece seen before, allocates nothing (no substring per word). Entries get stable integer
// ids in insertion order; the open-addressing index over them can grow without moving entries.

export class PieceTable {
  /** Key of each entry. */
  readonly keys: string[] = [];
  /** Token ids of each entry (undefined until known). */
  readonly values: (readonly number[] | undefined)[] = [];
  private hashes: number[] = [];
  /** Open-addressing index: entry id + 1, or 0 for an empty slot. */
  private slots = new Int32Array(1 << 16);
  private mask = this.slots.length - 1;

  get size(): number {
    return this.keys.length;
  }

  clear(): void {
    this.keys.length = 0;
    this.values.length = 0;
    this.hashes.length = 0;
    this.slots.fill(0);
  }

  /** The entry id of `text[start, end)`, adding the piece (with unknown ids) if it is new. */
  lookupOrAdd(text: string, start: number, end: number): number {
    let h = 0x811c9dc5; // FNV-1a over UTF-16 code units
    for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
    const len = end - start;
    let slot = h & this.mask;
    for (;;) {
      const id = this.slots[slot]! - 1;
      if (id < 0) break;
      if (this.hashes[id] === h) {
        const key = this.keys[id]!;
        if (key.length === len) {
          let i = 0;
          while (i < len && key.charCodeAt(i) === text.charCodeAt(start + i)) i++;
          if (i === len) return id;
        }
      }
      slot = (slot + 1) & this.mask;
    }
    const id = this.keys.length;
    // A copy of the piece, so the table never keeps a whole source text alive through a substring.
    this.keys.push(len > 12 ? Buffer.from(text.slice(start, end)).toString() : text.slice(start, end));
    this.values.push(undefined);
    this.hashes.push(h);
    this.slots[slot] = id + 1;
    if (this.keys.length * 2 > this.slots.length) this.grow();
    return id;
  }

  /** Forgets the entries added after the first `size` (e.g. when learning them failed). */
  truncate(size: number): void {
    this.keys.length = size;
    this.values.length = size;
    this.hashes.length = size;
    this.rebuild(this.slots.length);
  }

  private grow(): void {
    this.rebuild(this.slots.length * 2);
  }

  private rebuild(slots: number): void {
    this.slots = new Int32Array(slots);
    this.mask = this.slots.length - 1;
    for (let id = 0; id < this.hashes.length; id++) {
      let slot = this.hashes[id]! & this.mask;
      while (this.slots[slot] !== 0) slot = (slot + 1) & this.mask;
      this.slots[slot] = id + 1;
    }
  }
}
