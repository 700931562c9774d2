// BERT for masked language modelling, with Hugging Face's parameter names
// (`bert.embeddings.word_embeddings.weight`, …, `cls.predictions.transform.dense.weight`, `cls.predictions.bias`).
import * as k from "../../core/index.js";
import { KeySequence } from "../../nn/init.js";
import { dense, denseInit, embed, layerNorm, layerNormInit, ACTIVATIONS, type DenseParams, type NormParams } from "../../nn/layers.js";
import { paddingBias } from "../../nn/attention.js";
import type { MlmConfig } from "../config.js";
import {
  embeddingsInit,
  encoderApply,
  encoderInit,
  tiedLogits,
  type EmbeddingsParams,
  type EncoderParams,
} from "../transformer-encoder.js";
import { DropoutSites } from "../../nn/dropout-sites.js";
import type { ForwardOptions, MaskedLanguageModel, MaskedLMInit, Params } from "../masked-lm.js";

/** BERT's parameters, by transformers' names (BertForMaskedLM's state dict). */
export interface BertParams {
  bert: { embeddings: EmbeddingsParams; encoder: EncoderParams };
  cls: { predictions: { transform: { dense: DenseParams; LayerNorm: NormParams }; bias: k.Array } };
}

/** A BERT masked LM of `config` (token type embeddings, absolute positions), from its parameters' initializer. */
export function createBert(config: MlmConfig, init: MaskedLMInit = {}): MaskedLanguageModel<BertParams> {
  const c = config;
  const h = c.hidden_size;
  return {
    config: c,
    baseModelPrefix: "bert",
    tiedWeights: {
      "cls.predictions.decoder.weight": "bert.embeddings.word_embeddings.weight",
      "cls.predictions.decoder.bias": "cls.predictions.bias",
    },

    init(key: k.Array): BertParams {
      const keys = new KeySequence(key);
      const std = c.initializer_range;
      return {
        bert: {
          embeddings: embeddingsInit(keys, c, init.positionInit),
          encoder: encoderInit(keys, c, init.positionInit),
        },
        cls: {
          predictions: { transform: { dense: denseInit(keys, h, h, std), LayerNorm: layerNormInit(h) }, bias: k.zeros([c.vocab_size]) },
        },
      };
    },

    hidden(params: Params, inputIds: k.Array, attentionMask: k.Array, opts: ForwardOptions = {}): k.Array {
      const dtype = opts.dtype ?? "f32";
      const sites = new DropoutSites(opts.dropoutKey ?? null, opts.exampleOffset ?? 0);
      const e = params.bert.embeddings;
      const t = inputIds.shape[1]!;
      const posRows = e.position_embeddings.weight.slice([0, 0], [t, h]);
      const typeRow = e.token_type_embeddings.weight.slice([0, 0], [1, h]).reshape([h]);
      const x0 = embed(e.word_embeddings, inputIds)
        .add(posRows)
        .add(opts.tokenTypeIds ? embed(e.token_type_embeddings, opts.tokenTypeIds) : typeRow);
      let x = layerNorm(e.LayerNorm, x0, c.layer_norm_eps).astype(dtype);
      x = sites.apply(x, c.hidden_dropout_prob, 0);
      return encoderApply(params.bert.encoder, c, x, paddingBias(attentionMask, dtype), sites, opts.layerLoop, opts.firstTokenOnly);
    },

    lmHead(params: Params, hidden: k.Array): k.Array {
      const p = params.cls.predictions;
      const act = ACTIVATIONS[c.hidden_act]!;
      const t = layerNorm(p.transform.LayerNorm, act(dense(p.transform.dense, hidden)), c.layer_norm_eps);
      return tiedLogits(t, params.bert.embeddings.word_embeddings.weight, p.bias);
    },
  };
}
