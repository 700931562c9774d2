// A trie over integer labels (UTF-16 code units when encoding, dense symbol ids when training) whose
// terminal nodes carry a piece id. Edges live in one open-addressing hash table rather than in per-node
// objects: a vocabulary of 10^5..10^6 pieces stays a few flat arrays. Each slot keeps parent, label and
// child side by side, so a lookup usually touches a single cache line.

const EMPTY = -1;
const STRIDE = 4; // parent, label, child, (padding to 16 bytes)

export class PieceTrie {
  /** Piece id ending at each node, or -1. Node 0 is the root. */
  private terminal = new Int32Array(1024).fill(EMPTY);
  private nodes = 1;
  private slots: Int32Array;
  private mask: number;

  constructor() {
    this.mask = 1023;
    this.slots = new Int32Array((this.mask + 1) * STRIDE).fill(EMPTY);
  }

  /** The child of `node` under `label`, or -1. */
  child(node: number, label: number): number {
    const slots = this.slots,
      mask = this.mask;
    let slot = (Math.imul(node, 0x9e3779b1) ^ Math.imul(label, 0x85ebca6b)) & mask;
    for (;;) {
      const at = slot * STRIDE;
      const parent = slots[at];
      if (parent === EMPTY) return EMPTY;
      if (parent === node && slots[at + 1] === label) return slots[at + 2];
      slot = (slot + 1) & mask;
    }
  }

  /** The piece id that ends at `node`, or -1. */
  pieceAt(node: number): number {
    return this.terminal[node];
  }

  /** Inserts the piece spelled by labels[start, end) and marks its last node with `pieceId`. */
  insert(labels: ArrayLike<number>, start: number, end: number, pieceId: number): void {
    let node = 0;
    for (let i = start; i < end; i++) {
      const label = labels[i];
      let next = this.child(node, label);
      if (next === EMPTY) next = this.addChild(node, label);
      node = next;
    }
    this.terminal[node] = pieceId;
  }

  private addChild(node: number, label: number): number {
    // Keep the table at most half full: probes stay short.
    if (this.nodes * 2 > this.mask + 1) this.growSlots();
    const id = this.nodes++;
    if (id >= this.terminal.length) {
      const bigger = new Int32Array(this.terminal.length * 2).fill(EMPTY);
      bigger.set(this.terminal);
      this.terminal = bigger;
    }
    this.place(node, label, id);
    return id;
  }

  private place(node: number, label: number, child: number): void {
    const slots = this.slots,
      mask = this.mask;
    let slot = (Math.imul(node, 0x9e3779b1) ^ Math.imul(label, 0x85ebca6b)) & mask;
    while (slots[slot * STRIDE] !== EMPTY) slot = (slot + 1) & mask;
    const at = slot * STRIDE;
    slots[at] = node;
    slots[at + 1] = label;
    slots[at + 2] = child;
  }

  private growSlots(): void {
    const old = this.slots;
    this.mask = (this.mask + 1) * 2 - 1;
    this.slots = new Int32Array((this.mask + 1) * STRIDE).fill(EMPTY);
    for (let at = 0; at < old.length; at += STRIDE) {
      if (old[at] !== EMPTY) this.place(old[at], old[at + 1], old[at + 2]);
    }
  }
}
