// The transformer encoder shared by BERT and RoBERTa (post-layer-norm blocks), with the parameter
// names of Hugging Face's `encoder.layer.N.…` modules.
import * as k from "../core/index.js";
import { KeySequence, sinusoidalInit } from "../nn/init.js";
import {
  ACTIVATIONS,
  castLike,
  dense,
  denseInit,
  embeddingInit,
  layerNorm,
  layerNormInit,
  type DenseParams,
  type EmbeddingParams,
  type NormParams,
} from "../nn/layers.js";
import { selfAttention, type SelfAttentionParams } from "../nn/attention.js";
import type { DropoutSites } from "../nn/dropout-sites.js";
import type { MlmConfig } from "./config.js";
import type { PositionInit } from "./masked-lm.js";
import { applyLayers, type LayerLoop } from "./layer-stack.js";
import { localAttentionPositions, withLocalAttention } from "./local-attention-init.js";

export interface EncoderLayerParams {
  attention: { self: SelfAttentionParams; output: { dense: DenseParams; LayerNorm: NormParams } };
  intermediate: { dense: DenseParams };
  output: { dense: DenseParams; LayerNorm: NormParams };
}

export interface EncoderParams {
  layer: EncoderLayerParams[];
}

export interface EmbeddingsParams {
  word_embeddings: EmbeddingParams;
  position_embeddings: EmbeddingParams;
  token_type_embeddings: EmbeddingParams;
  LayerNorm: NormParams;
}

/** The `embeddings` module both BERT and RoBERTa have (word, position, token type, LayerNorm). */
export function embeddingsInit(keys: KeySequence, c: MlmConfig, positionInit: PositionInit = "normal"): EmbeddingsParams {
  const h = c.hidden_size,
    std = c.initializer_range;
  return {
    word_embeddings: embeddingInit(keys, c.vocab_size, h, std),
    position_embeddings: positionEmbeddingsInit(keys, c, positionInit),
    token_type_embeddings: embeddingInit(keys, c.type_vocab_size, h, std),
    LayerNorm: layerNormInit(h),
  };
}

function positionEmbeddingsInit(keys: KeySequence, c: MlmConfig, positionInit: PositionInit): EmbeddingParams {
  const rows = c.max_position_embeddings,
    h = c.hidden_size,
    std = c.initializer_range;
  if (positionInit === "normal") return embeddingInit(keys, rows, h, std);
  // The normal table's key is drawn and left unused, so every later parameter starts as under the normal init.
  keys.next();
  return { weight: positionInit === "sinusoidal" ? sinusoidalInit(rows, h, std) : localAttentionPositions(c) };
}

/** Vocabulary logits with the decoder tied to the word embeddings: t · Eᵀ + bias. */
export function tiedLogits(t: k.Array, wordEmbeddings: k.Array, bias: k.Array): k.Array {
  const logits = k.bind("dot_general", [t, castLike(wordEmbeddings, t)], {
    lhsContract: [t.ndim - 1],
    rhsContract: [1],
    lhsBatch: [],
    rhsBatch: [],
  });
  return logits.add(castLike(bias, logits));
}

export function encoderInit(keys: KeySequence, c: MlmConfig, positionInit: PositionInit = "normal"): EncoderParams {
  const h = c.hidden_size,
    std = c.initializer_range;
  const encoder: EncoderParams = {
    layer: Array.from({ length: c.num_hidden_layers }, () => ({
      attention: {
        self: { query: denseInit(keys, h, h, std), key: denseInit(keys, h, h, std), value: denseInit(keys, h, h, std) },
        output: { dense: denseInit(keys, h, h, std), LayerNorm: layerNormInit(h) },
      },
      intermediate: { dense: denseInit(keys, h, c.intermediate_size, std) },
      output: { dense: denseInit(keys, c.intermediate_size, h, std), LayerNorm: layerNormInit(h) },
    })),
  };
  return positionInit === "local-attention" ? withLocalAttention(encoder, c) : encoder;
}

export type { LayerLoop } from "./layer-stack.js";

/**
 * One encoder layer; `site` is its first dropout site (a number, or the loop's traced value). With
 * `firstOnly` it computes the first row alone ([batch, 1, hidden]): that row's query over every key.
 */
function encoderLayer(
  l: EncoderLayerParams,
  c: MlmConfig,
  x: k.Array,
  bias: k.Array,
  sites: DropoutSites,
  site: number | k.Array,
  firstOnly = false,
): k.Array {
  const act = ACTIVATIONS[c.hidden_act]!;
  const at = (d: number) => (typeof site === "number" ? site + d : site.add(d));
  const [b, , h] = x.shape as [number, number, number];
  const rows = firstOnly ? x.slice([0, 0, 0], [b, 1, h]) : x;
  const ctx = selfAttention(l.attention.self, x, bias, c.num_attention_heads, c.attention_probs_dropout_prob, sites, site, rows);
  const attnOut = sites.apply(dense(l.attention.output.dense, ctx), c.hidden_dropout_prob, at(1));
  x = layerNorm(l.attention.output.LayerNorm, attnOut.add(rows), c.layer_norm_eps);
  const ff = dense(l.output.dense, act(dense(l.intermediate.dense, x)));
  return layerNorm(l.output.LayerNorm, sites.apply(ff, c.hidden_dropout_prob, at(2)).add(x), c.layer_norm_eps);
}

/** Dropout sites of one encoder layer: attention probabilities, attention output, feed-forward output. */
const SITES_PER_LAYER = 3;

/** Dropout sites the embeddings and the first `layers` layers use (encoderApply's numbering): the next one free. */
export function encoderDropoutSites(layers: number): number {
  return 1 + SITES_PER_LAYER * layers;
}

/**
 * Dropout sites: 0 is the embeddings; layer i uses 1 + 3i (attention probabilities), 2 + 3i, 3 + 3i.
 * `firstTokenOnly`: the last layer computes the first row alone (ForwardOptions.firstTokenOnly), and the
 * result is [batch, 1, hidden]. A classifier reading [CLS] then skips 5/6 of that layer's work.
 */
export function encoderApply(
  p: EncoderParams,
  c: MlmConfig,
  x: k.Array,
  bias: k.Array,
  sites: DropoutSites,
  loop: LayerLoop = "unrolled",
  firstTokenOnly = false,
): k.Array {
  const firstSite = (i: number | k.Array) => (typeof i === "number" ? encoderDropoutSites(i) : i.mul(SITES_PER_LAYER).add(1));
  const layer = (l: EncoderLayerParams, h: k.Array, i: number | k.Array) => encoderLayer(l, c, h, bias, sites, firstSite(i));
  if (!firstTokenOnly) return applyLayers(p.layer, x, layer, loop, "encoder_layer");
  const last = p.layer.length - 1;
  const before = applyLayers(p.layer.slice(0, last), x, layer, loop, "encoder_layer");
  return encoderLayer(p.layer[last]!, c, before, bias, sites, encoderDropoutSites(last), true);
}
