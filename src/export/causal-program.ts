// The program a decoder's export runs for one row: `tokens` new tokens after `pastSlots` cached ones, by
// the model's own forwardCached over a cache of pastSlots + tokens slots. The past keys and values fill
// the first pastSlots slots (the rest of those masked out by the slot mask) and the new tokens' go after
// them, so the write position is static and nothing can overflow; the program returns the new tokens'
// logits and their keys and values, which the graph appends to the past it was given.
import * as k from "../core/index.js";
import type { Program } from "../core/ir.js";
import type { CausalLanguageModel } from "../models/causal-lm.js";
import type { Params } from "../models/language-model.js";

export interface CausalStepShape {
  /** New tokens (the input's length, padded up). */
  readonly tokens: number;
  /** Cached tokens before them (the past's length, padded up; 0 for a prompt's first call). */
  readonly pastSlots: number;
}

/**
 * Traces (ids [1, tokens], positions [1, tokens], slotMask [1, pastSlots + tokens], then each layer's
 * past key and value [1, kvHeads, pastSlots, headDim] when pastSlots > 0) → logits [1, tokens, vocab],
 * then each layer's new key and value [1, kvHeads, tokens, headDim], all f32.
 */
export function causalStepProgram(model: CausalLanguageModel, params: Params, shape: CausalStepShape): Program {
  const { tokens, pastSlots } = shape;
  const step = k.jit(
    (ids: k.Array, positions: k.Array, slotMask: k.Array, ...past: k.Array[]) => {
      const cache = {
        layers: model
          .initCache(1, tokens)
          .layers.map((fresh, i) =>
            pastSlots === 0 ? fresh : { key: k.concat([past[2 * i]!, fresh.key], 2), value: k.concat([past[2 * i + 1]!, fresh.value], 2) },
          ),
      };
      const { hidden, cache: next } = model.forwardCached(params, ids, positions, slotMask, cache, pastSlots);
      const fresh = (a: k.Array) =>
        a.slice(
          [0, 0, pastSlots, 0],
          a.shape.map((n, axis) => (axis === 2 ? pastSlots + tokens : n)),
        );
      return [model.lmHead(params, hidden).astype("f32"), ...next.layers.flatMap((l) => [fresh(l.key), fresh(l.value)])];
    },
    { name: "kiln_causal_step" },
  );
  const ids = k.zeros([1, tokens], "i32");
  // One slot's cache, for each layer's key/value shape.
  const past = model.initCache(1, 1).layers.flatMap((l) => {
    const [, heads, , d] = l.key.shape as [number, number, number, number];
    return pastSlots === 0 ? [] : [k.zeros([1, heads, pastSlots, d]), k.zeros([1, heads, pastSlots, d])];
  });
  return step.lower(ids, ids, k.ones([1, pastSlots + tokens], "i32"), ...past);
}
