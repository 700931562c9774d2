// Parameter initializers (the ones BERT-family models use), drawn from the engine's PRNG so an init
// is reproducible on every executor.
import * as k from "../core/index.js";

export function normalInit(key: k.Array, shape: readonly number[], std = 0.02): k.Array {
  return k.normal(key, shape, { std });
}

export function zerosInit(shape: readonly number[]): k.Array {
  return k.zeros(shape);
}

export function onesInit(shape: readonly number[]): k.Array {
  return k.ones(shape);
}

/**
 * Hands out independent keys in a fixed order, so adding a parameter later in the order never changes
 * the ones before it.
 */
export class KeySequence {
  private n = 0;
  constructor(private readonly key: k.Array) {}
  next(): k.Array {
    return k.foldIn(this.key, this.n++);
  }
}
