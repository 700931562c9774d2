// The transformer encoder shared by BERT and RoBERTa (post-layer-norm blocks), with the parameter
// names of Hugging Face's `encoder.layer.N.…` modules.
import * as k from "../core/index.js";
import { KeySequence } from "../nn/init.js";
import { ACTIVATIONS, dense, denseInit, layerNorm, layerNormInit, type DenseParams, type NormParams } from "../nn/layers.js";
import { selfAttention, type SelfAttentionParams } from "../nn/attention.js";
import type { MlmConfig } from "./config.js";

export interface EncoderLayerParams {
  attention: { self: SelfAttentionParams; output: { dense: DenseParams; LayerNorm: NormParams } };
  intermediate: { dense: DenseParams };
  output: { dense: DenseParams; LayerNorm: NormParams };
}

export interface EncoderParams { layer: EncoderLayerParams[] }

export function encoderInit(keys: KeySequence, c: MlmConfig): EncoderParams {
  const h = c.hidden_size, std = c.initializer_range;
  return {
    layer: Array.from({ length: c.num_hidden_layers }, () => ({
      attention: {
        self: { query: denseInit(keys, h, h, std), key: denseInit(keys, h, h, std), value: denseInit(keys, h, h, std) },
        output: { dense: denseInit(keys, h, h, std), LayerNorm: layerNormInit(h) },
      },
      intermediate: { dense: denseInit(keys, h, c.intermediate_size, std) },
      output: { dense: denseInit(keys, c.intermediate_size, h, std), LayerNorm: layerNormInit(h) },
    })),
  };
}

/** Dropout sites draw keys by (layer, site), so each mask is independent and reproducible. */
function siteKey(key: k.Array | null, layer: number, site: number): k.Array | null {
  return key ? k.foldIn(key, 1000 + layer * 8 + site) : null;
}

function drop(x: k.Array, rate: number, key: k.Array | null): k.Array {
  return key && rate > 0 ? k.dropout(key, x, rate) : x;
}

export function encoderApply(p: EncoderParams, c: MlmConfig, x: k.Array, bias: k.Array, dropoutKey: k.Array | null): k.Array {
  const act = ACTIVATIONS[c.hidden_act]!;
  p.layer.forEach((l, i) => {
    const ctx = selfAttention(l.attention.self, x, bias, c.num_attention_heads, c.attention_probs_dropout_prob, siteKey(dropoutKey, i, 0));
    const attnOut = drop(dense(l.attention.output.dense, ctx), c.hidden_dropout_prob, siteKey(dropoutKey, i, 1));
    x = layerNorm(l.attention.output.LayerNorm, attnOut.add(x), c.layer_norm_eps);
    const ff = dense(l.output.dense, act(dense(l.intermediate.dense, x)));
    x = layerNorm(l.output.LayerNorm, drop(ff, c.hidden_dropout_prob, siteKey(dropoutKey, i, 2)).add(x), c.layer_norm_eps);
  });
  return x;
}

export { drop as dropoutIf };
