// Llama for causal language modelling, as Hugging Face's LlamaForCausalLM computes it and names its
// parameters (`model.embed_tokens.weight`, `model.layers.N.self_attn.q_proj.weight`, …, `model.norm.weight`,
// `lm_head.weight`): pre-norm blocks with RMS norm, rotary positions, grouped-query attention and a
// SwiGLU feed-forward; the head tied to the token embeddings when tie_word_embeddings says so.
import * as k from "../../core/index.js";
import { KeySequence, normalInit, onesInit, zerosInit } from "../../nn/init.js";
import { ACTIVATIONS, linear, rmsNorm } from "../../nn/layers.js";
import { applyRotary, ropeInverseFrequencies, rotaryAngles, type RotaryAngles } from "../../nn/rotary.js";
import { attendCached, cachedVisibility } from "../../nn/causal-attention.js";
import { causalSelfAttention } from "../../nn/blockwise-attention.js";
import { DropoutSites } from "../../nn/dropout-sites.js";
import type { LlamaConfig } from "./config.js";
import type { CausalForwardOptions, CausalLanguageModel, KvCache } from "../causal-lm.js";
import type { Params } from "../language-model.js";
import { applyLayers } from "../layer-stack.js";

/** A linear layer in PyTorch's layout ([out, in]); the bias only where the config asks for one. */
interface Linear {
  weight: k.Array;
  bias?: k.Array;
}

export interface LlamaLayerParams {
  self_attn: { q_proj: Linear; k_proj: Linear; v_proj: Linear; o_proj: Linear };
  mlp: { gate_proj: Linear; up_proj: Linear; down_proj: Linear };
  input_layernorm: { weight: k.Array };
  post_attention_layernorm: { weight: k.Array };
}

function project(p: Linear, x: k.Array): k.Array {
  const y = linear(p.weight, x);
  return p.bias ? y.add(p.bias.astype(y.dtype)) : y;
}

/** Keys and values of the new tokens ([batch, kvHeads, t, headDim]) → their attention context [batch, t, heads · headDim]. */
type Attend = (q: k.Array, keys: k.Array, values: k.Array, layer: number | k.Array) => k.Array;

/** Llama's parameters, by transformers' names (LlamaForCausalLM's state dict); lm_head only when untied. */
export interface LlamaParams {
  model: { embed_tokens: { weight: k.Array }; layers: LlamaLayerParams[]; norm: { weight: k.Array } };
  lm_head?: { weight: k.Array };
}

/** A Llama causal LM of `config`. */
export function createLlama(config: LlamaConfig): CausalLanguageModel<LlamaParams> {
  const c = config;
  const h = c.hidden_size,
    heads = c.num_attention_heads,
    kvHeads = c.num_key_value_heads,
    d = c.head_dim;
  const act = ACTIVATIONS[c.hidden_act]!;
  const inverseFrequencies = ropeInverseFrequencies(d, c.rope_parameters.rope_theta);
  const scale = 1 / Math.sqrt(d);

  const linearInit = (keys: KeySequence, inDim: number, outDim: number, bias: boolean): Linear => {
    const w = normalInit(keys.next(), [outDim, inDim], c.initializer_range);
    return bias ? { weight: w, bias: zerosInit([outDim]) } : { weight: w };
  };

  /** One decoder layer: x + attention(norm(x)), then + SwiGLU(norm(x)). */
  const layer = (l: LlamaLayerParams, x: k.Array, angles: RotaryAngles, attend: Attend, index: number | k.Array): k.Array => {
    const [b, t] = x.shape as [number, number];
    const a = l.self_attn;
    const n = rmsNorm(l.input_layernorm.weight, x, c.rms_norm_eps);
    // The query and key heads rotated each on its own: ONNX Runtime computes each rotation in one kernel
    // (exec/ort/fused-kernels.ts), which side by side would need a concatenation and a split around it.
    const q = applyRotary(project(a.q_proj, n).reshape([b, t, heads, d]), angles);
    const keys = applyRotary(project(a.k_proj, n).reshape([b, t, kvHeads, d]), angles).transpose([0, 2, 1, 3]);
    const values = project(a.v_proj, n).reshape([b, t, kvHeads, d]).transpose([0, 2, 1, 3]);
    x = x.add(project(a.o_proj, attend(q, keys, values, index)));
    const m = l.mlp;
    const f = rmsNorm(l.post_attention_layernorm.weight, x, c.rms_norm_eps);
    return x.add(project(m.down_proj, act(project(m.gate_proj, f)).mul(project(m.up_proj, f))));
  };

  const embedTokens = (params: Params, inputIds: k.Array, dtype: k.DType) =>
    k.take(params.model.embed_tokens.weight, inputIds, 0).astype(dtype);

  return {
    config: c,
    maxLength: c.max_position_embeddings,
    baseModelPrefix: "model",
    tiedWeights: c.tie_word_embeddings ? { "lm_head.weight": "model.embed_tokens.weight" } : {},

    init(key: k.Array): LlamaParams {
      const keys = new KeySequence(key);
      let embed = normalInit(keys.next(), [c.vocab_size, h], c.initializer_range);
      // nn.Embedding(padding_idx=pad_token_id): the padding row starts at zero.
      if (c.pad_token_id !== null && c.pad_token_id !== undefined)
        embed = k.where(k.iota([c.vocab_size, 1], 0, "i32").equal(c.pad_token_id), 0, embed);
      const layers: LlamaLayerParams[] = Array.from({ length: c.num_hidden_layers }, () => ({
        self_attn: {
          q_proj: linearInit(keys, h, heads * d, c.attention_bias),
          k_proj: linearInit(keys, h, kvHeads * d, c.attention_bias),
          v_proj: linearInit(keys, h, kvHeads * d, c.attention_bias),
          o_proj: linearInit(keys, heads * d, h, c.attention_bias),
        },
        mlp: {
          gate_proj: linearInit(keys, h, c.intermediate_size, c.mlp_bias),
          up_proj: linearInit(keys, h, c.intermediate_size, c.mlp_bias),
          down_proj: linearInit(keys, c.intermediate_size, h, c.mlp_bias),
        },
        input_layernorm: { weight: onesInit([h]) },
        post_attention_layernorm: { weight: onesInit([h]) },
      }));
      const params: LlamaParams = { model: { embed_tokens: { weight: embed }, layers, norm: { weight: onesInit([h]) } } };
      if (!c.tie_word_embeddings) params.lm_head = { weight: normalInit(keys.next(), [c.vocab_size, h], c.initializer_range) };
      return params;
    },

    hidden(params: Params, inputIds: k.Array, attentionMask: k.Array, opts: CausalForwardOptions = {}): k.Array {
      const dtype = opts.dtype ?? "f32";
      const sites = new DropoutSites(opts.dropoutKey ?? null, opts.exampleOffset ?? 0);
      const [b, t] = inputIds.shape as [number, number];
      const angles = rotaryAngles(opts.positionIds ?? k.iota([b, t], 1, "i32"), inverseFrequencies, dtype);
      const blockSize = c.attention_block_size ?? null;
      // Dropout site i: layer i's attention probabilities (Llama has no other dropout).
      const attend = causalSelfAttention(attentionMask, t, scale, blockSize, { sites, rate: c.attention_dropout, site: (i) => i });
      const x = applyLayers(
        params.model.layers as LlamaLayerParams[],
        embedTokens(params, inputIds, dtype),
        (l, x, i) => layer(l, x, angles, attend, i),
        opts.layerLoop,
      );
      return rmsNorm(params.model.norm.weight, x, c.rms_norm_eps);
    },

    lmHead(params: Params, hidden: k.Array): k.Array {
      return linear(c.tie_word_embeddings ? params.model.embed_tokens.weight : params.lm_head.weight, hidden);
    },

    initCache(batch: number, capacity: number, dtype: k.DType = "f32"): KvCache {
      return {
        layers: Array.from({ length: c.num_hidden_layers }, () => ({
          key: k.zeros([batch, kvHeads, capacity, d], dtype),
          value: k.zeros([batch, kvHeads, capacity, d], dtype),
        })),
      };
    },

    forwardCached(params, inputIds, positionIds, slotMask, cache, start, opts = {}) {
      const dtype = opts.dtype ?? "f32";
      const t = inputIds.shape[1]!;
      const angles = rotaryAngles(positionIds, inverseFrequencies, dtype);
      const visible = cachedVisibility(slotMask, start, t);
      const updated: KvCache["layers"] = [];
      const attend: Attend = (q, keys, values, i) => {
        const { context, layer } = attendCached(cache.layers[i as number]!, q, keys, values, start, visible, scale, opts.deferCacheWrites);
        updated.push(layer);
        return context;
      };
      let x = embedTokens(params, inputIds, dtype);
      (params.model.layers as LlamaLayerParams[]).forEach((l, i) => {
        x = layer(l, x, angles, attend, i);
      });
      return { hidden: rmsNorm(params.model.norm.weight, x, c.rms_norm_eps), cache: { layers: updated } };
    },
  };
}
