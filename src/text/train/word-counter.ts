// Counts Metaspace words while the corpus streams past: the trainer's only statistic that grows with
// the corpus is this table of distinct words. Words are hashed straight from the text's code units into
// an open-addressing table over typed arrays, so a word seen before costs no string allocation (on SOTU
// this is twice as fast as a Map of sliced strings). A word is keyed by its body, the text after its '▁'.

const SPACE = 0x20;
const META = 0x2581;
const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 16777619;

export class WordCounter {
  private slots = new Int32Array(1 << 16).fill(-1);
  private mask = (1 << 16) - 1;
  /** Code units of every distinct body, back to back. */
  private pool = new Uint16Array(1 << 20);
  private poolLength = 0;
  private bodyStart = new Int32Array(1 << 14);
  private bodyLength = new Int32Array(1 << 14);
  private bodyHash = new Int32Array(1 << 14);
  private bodyCount = new Float64Array(1 << 14);
  private distinct = 0;
  private total = 0;

  /** Number of distinct words so far. */
  get size(): number {
    return this.distinct;
  }

  /** Number of words counted so far. */
  get totalWords(): number {
    return this.total;
  }

  /** Counts the words of normalized text, split the way the Metaspace pre-tokenizer splits it. */
  addText(text: string): void {
    const n = text.length;
    if (n === 0) return;
    const first = text.charCodeAt(0);
    let start = first === SPACE || first === META ? 1 : 0;
    let hash = FNV_OFFSET;
    for (let i = start; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c === SPACE || c === META) {
        this.add(text, start, i, hash);
        start = i + 1;
        hash = FNV_OFFSET;
      } else {
        hash = Math.imul(hash ^ c, FNV_PRIME);
      }
    }
    this.add(text, start, n, hash);
  }

  /** Calls `fn(codeUnits, start, length, count)` for each distinct body, in order of first appearance. */
  forEach(fn: (codeUnits: Uint16Array, start: number, length: number, count: number) => void): void {
    for (let w = 0; w < this.distinct; w++) fn(this.pool, this.bodyStart[w], this.bodyLength[w], this.bodyCount[w]);
  }

  private add(text: string, start: number, end: number, hash: number): void {
    this.total++;
    const length = end - start;
    const pool = this.pool;
    let slot = hash & this.mask;
    for (;;) {
      const w = this.slots[slot];
      if (w < 0) break;
      if (this.bodyHash[w] === hash && this.bodyLength[w] === length) {
        const at = this.bodyStart[w];
        let k = 0;
        while (k < length && pool[at + k] === text.charCodeAt(start + k)) k++;
        if (k === length) {
          this.bodyCount[w]++;
          return;
        }
      }
      slot = (slot + 1) & this.mask;
    }
    this.insert(text, start, length, hash, slot);
  }

  private insert(text: string, start: number, length: number, hash: number, slot: number): void {
    const w = this.distinct++;
    if (w === this.bodyStart.length) {
      this.bodyStart = grow(this.bodyStart);
      this.bodyLength = grow(this.bodyLength);
      this.bodyHash = grow(this.bodyHash);
      this.bodyCount = grow(this.bodyCount);
    }
    while (this.poolLength + length > this.pool.length) this.pool = grow(this.pool);
    for (let k = 0; k < length; k++) this.pool[this.poolLength + k] = text.charCodeAt(start + k);
    this.bodyStart[w] = this.poolLength;
    this.bodyLength[w] = length;
    this.bodyHash[w] = hash;
    this.bodyCount[w] = 1;
    this.poolLength += length;
    this.slots[slot] = w;
    if (this.distinct * 2 > this.mask + 1) this.rehash();
  }

  private rehash(): void {
    const capacity = (this.mask + 1) * 2;
    this.mask = capacity - 1;
    this.slots = new Int32Array(capacity).fill(-1);
    for (let w = 0; w < this.distinct; w++) {
      let slot = this.bodyHash[w] & this.mask;
      while (this.slots[slot] >= 0) slot = (slot + 1) & this.mask;
      this.slots[slot] = w;
    }
  }
}

function grow<T extends Int32Array | Float64Array | Uint16Array>(a: T): T {
  const bigger = new (a.constructor as new (n: number) => T)(a.length * 2);
  bigger.set(a);
  return bigger;
}
