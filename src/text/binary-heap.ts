// A binary min-heap ordered by a `before` test: the BPE encoder's merge candidates and the BPE trainer's
// pair counts both take the first entry in their own order, and neither needs more than push and pop.

export class BinaryHeap<T> {
  private readonly h: T[] = [];

  /** `before(a, b)`: a comes out before b. */
  constructor(private readonly before: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.h.length;
  }

  push(e: T): void {
    const h = this.h;
    h.push(e);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.before(h[i]!, h[p]!)) break;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
  }

  /** The first entry, removed; undefined when empty. */
  pop(): T | undefined {
    const h = this.h;
    if (h.length === 0) return undefined;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1,
          r = l + 1;
        let s = i;
        if (l < h.length && this.before(h[l]!, h[s]!)) s = l;
        if (r < h.length && this.before(h[r]!, h[s]!)) s = r;
        if (s === i) break;
        [h[i], h[s]] = [h[s]!, h[i]!];
        i = s;
      }
    }
    return top;
  }
}
