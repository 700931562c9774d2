// A trie over integer labels (UTF-16 code units when encoding, dense symbol ids when training) whose
// terminal nodes carry a piece id. Edges live in one open-addressing hash table of typed arrays rather
// than in per-node objects: a vocabulary of 10^5..10^6 pieces stays a few flat arrays, and a lookup is a
// multiply, a mask and one or two probes.

const EMPTY = -1;

export class PieceTrie {
  /** Piece id ending at each node, or -1. Node 0 is the root. */
  private terminal: Int32Array;
  private nodeCount = 1;
  private slotParent: Int32Array;
  private slotLabel: Int32Array;
  private slotChild: Int32Array;
  private mask: number;
  private used = 0;

  constructor(expectedNodes = 1024) {
    let capacity = 1024;
    while (capacity < expectedNodes * 2) capacity *= 2;
    this.mask = capacity - 1;
    this.slotParent = new Int32Array(capacity).fill(EMPTY);
    this.slotLabel = new Int32Array(capacity);
    this.slotChild = new Int32Array(capacity);
    this.terminal = new Int32Array(Math.max(16, expectedNodes)).fill(EMPTY);
  }

  /** The child of `node` under `label`, or -1. */
  child(node: number, label: number): number {
    const mask = this.mask;
    let slot = (Math.imul(node, 0x9e3779b1) ^ Math.imul(label, 0x85ebca6b)) & mask;
    for (;;) {
      const parent = this.slotParent[slot];
      if (parent === EMPTY) return EMPTY;
      if (parent === node && this.slotLabel[slot] === label) return this.slotChild[slot];
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
    if ((this.used + 1) * 2 > this.mask + 1) this.growSlots();
    const id = this.nodeCount++;
    if (id >= this.terminal.length) {
      const bigger = new Int32Array(this.terminal.length * 2).fill(EMPTY);
      bigger.set(this.terminal);
      this.terminal = bigger;
    }
    this.place(node, label, id);
    this.used++;
    return id;
  }

  private place(node: number, label: number, child: number): void {
    const mask = this.mask;
    let slot = (Math.imul(node, 0x9e3779b1) ^ Math.imul(label, 0x85ebca6b)) & mask;
    while (this.slotParent[slot] !== EMPTY) slot = (slot + 1) & mask;
    this.slotParent[slot] = node;
    this.slotLabel[slot] = label;
    this.slotChild[slot] = child;
  }

  private growSlots(): void {
    const parents = this.slotParent, labels = this.slotLabel, children = this.slotChild;
    const capacity = (this.mask + 1) * 2;
    this.mask = capacity - 1;
    this.slotParent = new Int32Array(capacity).fill(EMPTY);
    this.slotLabel = new Int32Array(capacity);
    this.slotChild = new Int32Array(capacity);
    for (let s = 0; s < parents.length; s++) {
      if (parents[s] !== EMPTY) this.place(parents[s], labels[s], children[s]);
    }
  }
}
