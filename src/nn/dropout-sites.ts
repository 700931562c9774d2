// Dropout inside a model: each site (layer, position in the layer) draws from its own key, and the
// random stream is indexed by the global example index, so a replica's or micro-batch's share of a
// batch gets exactly the masks that the whole batch would on one device.
import * as k from "../core/index.js";

/** Dropout keys for a model's forward pass: each site draws from its own key, indexed by the global example. */
export class DropoutSites {
  /** `key` null: no dropout (evaluation). `exampleOffset`: global index of this batch's first example. */
  constructor(
    private readonly key: k.Array | null,
    private readonly exampleOffset: number | k.Array = 0,
  ) {}

  get active(): boolean {
    return this.key !== null;
  }

  /** `site` may be traced (a layer loop's index): the key is the same as for the number. */
  apply(x: k.Array, rate: number, site: number | k.Array): k.Array {
    if (!this.key || rate === 0) return x;
    const perExample = x.size / x.shape[0]!;
    const offset =
      typeof this.exampleOffset === "number" ? this.exampleOffset * perExample : this.exampleOffset.astype("u32").mul(perExample >>> 0);
    // Two draws per hash where an example's element count is even (always, but for odd sequence lengths
    // with an odd width): the rows are examples, so a replica's or micro-batch's share draws as the whole.
    return k.dropout(k.foldIn(this.key, site), x, rate, { offset, halves: perExample % 2 === 0 });
  }
}
