// A model's stack of identical layers, traced unrolled or as one scan over the layers (the parameters
// keep their per-layer tree, so names and checkpoints do not change: the loop stacks them inside the
// traced function). The encoder (transformer-encoder.ts) and the decoders (llama.ts, gpt2.ts) share it.
import * as k from "../core/index.js";

/**
 * How the layer stack is traced: "unrolled" (the default: each layer's equations in the program) or
 * "scan" (one loop over the layers; the program holds one layer, whatever the depth). The parameters
 * keep their per-layer tree either way (checkpoints and names do not change): the loop stacks them
 * along a new leading axis inside the traced function.
 */
export type LayerLoop = "unrolled" | "scan";

/** x through `layer` for each of `layers`; `layer` gets the layer's index (a number, or the loop's traced u32). */
export function applyLayers<L>(
  layers: readonly L[],
  x: k.Array,
  layer: (params: L, x: k.Array, index: number | k.Array) => k.Array,
  loop: LayerLoop = "unrolled",
  name = "decoder_layer",
): k.Array {
  if (loop === "scan" && layers.length > 1) {
    const stacked = k.treeMap((...ls: k.Array[]) => k.stack(ls), layers[0] as k.PyTree, ...(layers.slice(1) as k.PyTree[])) as L;
    const index = k.iota([layers.length], 0, "u32");
    const [out] = k.scan((h: k.Array, [l, i]: [L, k.Array]) => [layer(l, h, i), null] as const, x, [stacked, index], { name });
    return out;
  }
  layers.forEach((l, i) => {
    x = layer(l, x, i);
  });
  return x;
}
