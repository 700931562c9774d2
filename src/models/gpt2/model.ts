// GPT-2 for causal language modelling, as Hugging Face's GPT2LMHeadModel computes it and names its
// parameters (`transformer.wte.weight`, `transformer.h.N.attn.c_attn.weight`, …, `transformer.ln_f.weight`):
// pre-norm blocks with learned absolute positions. Its projections are Conv1D modules whose weights are
// stored [in, out], the transpose of a Linear's; they keep that layout so safetensors files match.
import * as k from "../../core/index.js";
import { KeySequence, normalInit } from "../../nn/init.js";
import { ACTIVATIONS, conv1d, conv1dInit, layerNorm, layerNormInit, linear, type DenseParams, type NormParams } from "../../nn/layers.js";
import { attendCached, cachedVisibility } from "../../nn/causal-attention.js";
import { causalSelfAttention } from "../../nn/blockwise-attention.js";
import { DropoutSites } from "../../nn/dropout-sites.js";
import type { Gpt2Config } from "./config.js";
import type { CausalForwardOptions, CausalLanguageModel, KvCache } from "../causal-lm.js";
import type { Params } from "../language-model.js";
import { applyLayers } from "../layer-stack.js";

export interface Gpt2BlockParams {
  ln_1: NormParams;
  attn: { c_attn: DenseParams; c_proj: DenseParams };
  ln_2: NormParams;
  mlp: { c_fc: DenseParams; c_proj: DenseParams };
}

/** Queries [batch, t, heads, headDim], keys and values [batch, heads, t, headDim] → context [batch, t, hidden]. */
type Attend = (q: k.Array, keys: k.Array, values: k.Array, layer: number | k.Array) => k.Array;

/** GPT-2's parameters, by transformers' names (GPT2LMHeadModel's state dict); lm_head only when untied. */
export interface Gpt2Params {
  transformer: { wte: { weight: k.Array }; wpe: { weight: k.Array }; h: Gpt2BlockParams[]; ln_f: NormParams };
  lm_head?: { weight: k.Array };
}

/** A GPT-2 causal LM of `config`. */
export function createGpt2(config: Gpt2Config): CausalLanguageModel<Gpt2Params> {
  const c = config;
  const h = c.n_embd,
    heads = c.n_head,
    d = h / heads,
    inner = c.n_inner ?? 4 * h;
  const act = ACTIVATIONS[c.activation_function]!;
  const scale = c.scale_attn_weights ? 1 / Math.sqrt(d) : 1;
  const std = c.initializer_range;

  /**
   * One block: x + attention(ln_1(x)), then + MLP(ln_2(x)). Dropout sites (with `site` the block's
   * first): the attention probabilities, the attention output, the MLP output.
   */
  const block = (l: Gpt2BlockParams, x: k.Array, attend: Attend, index: number | k.Array, sites: DropoutSites | null): k.Array => {
    const [b, t] = x.shape as [number, number];
    const site = (offset: number) => (typeof index === "number" ? 1 + 3 * index + offset : index.mul(3).add(1 + offset));
    const drop = (y: k.Array, offset: number) => (sites ? sites.apply(y, c.resid_pdrop, site(offset)) : y);
    const qkv = conv1d(l.attn.c_attn, layerNorm(l.ln_1, x, c.layer_norm_epsilon));
    const [q, keys, values] = k.split(qkv, [h, h, h], -1).map((y) => y.reshape([b, t, heads, d])) as [k.Array, k.Array, k.Array];
    const context = attend(q, keys.transpose([0, 2, 1, 3]), values.transpose([0, 2, 1, 3]), index);
    x = x.add(drop(conv1d(l.attn.c_proj, context), 1));
    const m = l.mlp;
    return x.add(drop(conv1d(m.c_proj, act(conv1d(m.c_fc, layerNorm(l.ln_2, x, c.layer_norm_epsilon)))), 2));
  };

  const embed = (params: Params, inputIds: k.Array, positionIds: k.Array, dtype: k.DType): k.Array => {
    const t = params.transformer;
    return k
      .take(t.wte.weight, inputIds, 0)
      .add(k.take(t.wpe.weight, positionIds, 0))
      .astype(dtype);
  };

  return {
    config: c,
    maxLength: c.n_positions,
    baseModelPrefix: "transformer",
    tiedWeights: c.tie_word_embeddings ? { "lm_head.weight": "transformer.wte.weight" } : {},

    init(key: k.Array): Gpt2Params {
      const keys = new KeySequence(key);
      // GPT-2's scaled init: the projections onto the residual stream by 1/√(2 · layers).
      const residualStd = std / Math.sqrt(2 * c.n_layer);
      const transformer = {
        wte: { weight: normalInit(keys.next(), [c.vocab_size, h], std) },
        wpe: { weight: normalInit(keys.next(), [c.n_positions, h], std) },
        h: Array.from({ length: c.n_layer }, (): Gpt2BlockParams => ({
          ln_1: layerNormInit(h),
          attn: { c_attn: conv1dInit(keys, h, 3 * h, std), c_proj: conv1dInit(keys, h, h, residualStd) },
          ln_2: layerNormInit(h),
          mlp: { c_fc: conv1dInit(keys, h, inner, std), c_proj: conv1dInit(keys, inner, h, residualStd) },
        })),
        ln_f: layerNormInit(h),
      };
      const params: Gpt2Params = { transformer };
      if (!c.tie_word_embeddings) params.lm_head = { weight: normalInit(keys.next(), [c.vocab_size, h], std) };
      return params;
    },

    hidden(params: Params, inputIds: k.Array, attentionMask: k.Array, opts: CausalForwardOptions = {}): k.Array {
      const dtype = opts.dtype ?? "f32";
      const sites = new DropoutSites(opts.dropoutKey ?? null, opts.exampleOffset ?? 0);
      const [b, t] = inputIds.shape as [number, number];
      const blockSize = c.attention_block_size ?? null;
      const attend = causalSelfAttention(attentionMask, t, scale, blockSize, {
        sites,
        rate: c.attn_pdrop,
        site: (i) => (typeof i === "number" ? 1 + 3 * i : i.mul(3).add(1)),
      });
      // Dropout site 0: the embeddings; block i: 1 + 3i, 2 + 3i, 3 + 3i.
      const x0 = sites.apply(embed(params, inputIds, opts.positionIds ?? k.iota([b, t], 1, "i32"), dtype), c.embd_pdrop, 0);
      const x = applyLayers(params.transformer.h as Gpt2BlockParams[], x0, (l, x, i) => block(l, x, attend, i, sites), opts.layerLoop);
      return layerNorm(params.transformer.ln_f, x, c.layer_norm_epsilon);
    },

    lmHead(params: Params, hidden: k.Array): k.Array {
      return linear(c.tie_word_embeddings ? params.transformer.wte.weight : params.lm_head.weight, hidden);
    },

    initCache(batch: number, capacity: number, dtype: k.DType = "f32"): KvCache {
      return {
        layers: Array.from({ length: c.n_layer }, () => ({
          key: k.zeros([batch, heads, capacity, d], dtype),
          value: k.zeros([batch, heads, capacity, d], dtype),
        })),
      };
    },

    forwardCached(params, inputIds, positionIds, slotMask, cache, start, opts = {}) {
      const dtype = opts.dtype ?? "f32";
      const visible = cachedVisibility(slotMask, start, inputIds.shape[1]!);
      const updated: KvCache["layers"] = [];
      const attend: Attend = (q, keys, values, i) => {
        const { context, layer } = attendCached(cache.layers[i as number]!, q, keys, values, start, visible, scale, opts.deferCacheWrites);
        updated.push(layer);
        return context;
      };
      let x = embed(params, inputIds, positionIds, dtype);
      (params.transformer.h as Gpt2BlockParams[]).forEach((l, i) => {
        x = block(l, x, attend, i, null);
      });
      return { hidden: layerNorm(params.transformer.ln_f, x, c.layer_norm_epsilon), cache: { layers: updated } };
    },
  };
}
