// RoBERTa for masked language modelling, with Hugging Face's parameter names
// (`roberta.embeddings.word_embeddings.weight`, …, `lm_head.dense.weight`, `lm_head.bias`).
import * as k from "../../core/index.js";
import { KeySequence } from "../../nn/init.js";
import { dense, denseInit, embed, layerNorm, layerNormInit, type DenseParams, type NormParams } from "../../nn/layers.js";
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

/**
 * RoBERTa's position ids: padding keeps pad_token_id, real tokens count up from pad_token_id + 1
 * (Hugging Face's create_position_ids_from_input_ids).
 */
export function robertaPositionIds(inputIds: k.Array, padId: number): k.Array {
  const notPad = inputIds.notEqual(padId).astype("i32");
  return notPad.cumsum(1).mul(notPad).add(padId);
}

/** RoBERTa's parameters, by transformers' names (RobertaForMaskedLM's state dict). */
export interface RobertaParams {
  roberta: { embeddings: EmbeddingsParams; encoder: EncoderParams };
  lm_head: { dense: DenseParams; layer_norm: NormParams; bias: k.Array };
}

/** A RoBERTa masked LM of `config`, from its parameters' initializer. */
export function createRoberta(config: MlmConfig, init: MaskedLMInit = {}): MaskedLanguageModel<RobertaParams> {
  const c = config;
  const h = c.hidden_size;
  return {
    config: c,
    baseModelPrefix: "roberta",
    tiedWeights: { "lm_head.decoder.weight": "roberta.embeddings.word_embeddings.weight", "lm_head.decoder.bias": "lm_head.bias" },

    init(key: k.Array): RobertaParams {
      const keys = new KeySequence(key);
      const std = c.initializer_range;
      return {
        roberta: {
          embeddings: embeddingsInit(keys, c, init.positionInit),
          encoder: encoderInit(keys, c, init.positionInit),
        },
        lm_head: { dense: denseInit(keys, h, h, std), layer_norm: layerNormInit(h), bias: k.zeros([c.vocab_size]) },
      };
    },

    hidden(params: Params, inputIds: k.Array, attentionMask: k.Array, opts: ForwardOptions = {}): k.Array {
      const dtype = opts.dtype ?? "f32";
      const sites = new DropoutSites(opts.dropoutKey ?? null, opts.exampleOffset ?? 0);
      const e = params.roberta.embeddings;
      const pos = robertaPositionIds(inputIds, c.pad_token_id);
      // token_type_ids are all 0 for single sequences: row 0 of the type table, broadcast.
      const typeRow = e.token_type_embeddings.weight.slice([0, 0], [1, h]).reshape([h]);
      const x0 = embed(e.word_embeddings, inputIds)
        .add(embed(e.position_embeddings, pos))
        .add(opts.tokenTypeIds ? embed(e.token_type_embeddings, opts.tokenTypeIds) : typeRow);
      let x = layerNorm(e.LayerNorm, x0, c.layer_norm_eps).astype(dtype);
      x = sites.apply(x, c.hidden_dropout_prob, 0);
      return encoderApply(params.roberta.encoder, c, x, paddingBias(attentionMask, dtype), sites, opts.layerLoop, opts.firstTokenOnly);
    },

    lmHead(params: Params, hidden: k.Array): k.Array {
      const p = params.lm_head;
      // RoBERTa's head always uses GELU, whatever hidden_act says (as in Hugging Face's RobertaLMHead).
      const t = layerNorm(p.layer_norm, k.gelu(dense(p.dense, hidden)), c.layer_norm_eps);
      return tiedLogits(t, params.roberta.embeddings.word_embeddings.weight, p.bias);
    },
  };
}
