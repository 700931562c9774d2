// Sequence classifiers as transformers builds them, one head per family on its base model's hidden
// states, with transformers' parameter names:
//   BERT     bert.* + bert.pooler.dense (tanh of the [CLS] row) + classifier       (BertForSequenceClassification)
//   RoBERTa  roberta.* + classifier.dense (tanh) + classifier.out_proj, on <s>     (RobertaForSequenceClassification)
//   Llama    model.* + score (no bias), on each row's last real token              (LlamaForSequenceClassification)
//   GPT-2    transformer.* + score (no bias), on each row's last real token        (GPT2ForSequenceClassification)
// BERT's and RoBERTa's heads drop out what they read, as transformers' do (classifier_dropout, else
// hidden_dropout_prob), at dropout sites after the encoder's; the decoders' score heads have none.
import * as k from "../../core/index.js";
import { DropoutSites } from "../../nn/dropout-sites.js";
import { KeySequence, normalInit } from "../../nn/init.js";
import { dense, denseInit, linear, type DenseParams } from "../../nn/layers.js";
import type { LanguageModel, Params } from "../language-model.js";
import { checkForwardInputs } from "../check-inputs.js";
import { modelSpec } from "../registry.js";
import { encoderDropoutSites } from "../transformer-encoder.js";
import { CLASSIFIER_ARCHITECTURES, type ClassifierConfig } from "./config.js";

export interface ClassifierForwardOptions {
  /** PRNG key for dropout; null (default) runs without dropout (evaluation, inference). */
  dropoutKey?: k.Array | null;
  /** Global index of the batch's first example (a replica's or micro-batch's share), for dropout's random stream. */
  exampleOffset?: number | k.Array;
  /** Segment of each token [batch, seq] (i32): 0 for a pair's first text, 1 for its second (BERT's token_type_ids). */
  tokenTypeIds?: k.Array;
  /** Activation dtype ("f32" default). */
  dtype?: k.DType;
}

export interface SequenceClassifier<P extends object = Params> extends LanguageModel<P> {
  readonly task: "sequence-classification";
  readonly config: ClassifierConfig;
  /** transformers' class: BertForSequenceClassification, … */
  readonly architecture: string;
  /** Parameter names of the head (what a base model's checkpoint lacks and a fresh head initializes). */
  readonly headNames: readonly string[];
  /** Class logits [batch, num_labels] of padded rows (attentionMask 1 for real tokens, 0 for padding on the right). */
  logits(params: P, inputIds: k.Array, attentionMask: k.Array, opts?: ClassifierForwardOptions): k.Array;
}

/** One family's head: its parameters (a tree merged into the base model's) and how it reads hidden states. */
interface Head {
  names: string[];
  /** It reads the first token's hidden state alone, so the base model's last layer computes only that row. */
  readsFirstToken: boolean;
  init(keys: KeySequence): Params;
  apply(params: Params, hidden: k.Array, attentionMask: k.Array, dropout: (x: k.Array, site: number) => k.Array): k.Array;
}

/** The first token's hidden state of each row ([CLS], <s>): [batch, hidden]. */
function firstToken(hidden: k.Array): k.Array {
  const [b, , h] = hidden.shape as [number, number, number];
  return hidden.slice([0, 0, 0], [b, 1, h]).reshape([b, h]);
}

/** Each row's hidden state at its last real token (the last position whose mask is 1): [batch, hidden]. */
function lastRealToken(hidden: k.Array, attentionMask: k.Array): k.Array {
  const [b, t, h] = hidden.shape as [number, number, number];
  const positions = k.iota([b, t], 1, "i32").mul(attentionMask.astype("i32"));
  const rows = k.iota([b], 0, "i32").mul(t).add(k.max(positions, 1));
  return k.take(hidden.reshape([b * t, h]), rows, 0);
}

function headOf(c: ClassifierConfig): Head {
  const n = c.num_labels;
  const std = c.initializer_range as number;
  switch (c.model_type) {
    case "bert": {
      const h = c.hidden_size;
      return {
        names: ["bert.pooler.dense.weight", "bert.pooler.dense.bias", "classifier.weight", "classifier.bias"],
        readsFirstToken: true,
        init: (keys) => ({ bert: { pooler: { dense: denseInit(keys, h, h, std) } }, classifier: denseInit(keys, h, n, std) }),
        apply: (p, hidden, _mask, drop) =>
          dense(p.classifier as DenseParams, drop(k.tanh(dense(p.bert.pooler.dense, firstToken(hidden))), 0)),
      };
    }
    case "roberta": {
      const h = c.hidden_size;
      return {
        names: ["classifier.dense.weight", "classifier.dense.bias", "classifier.out_proj.weight", "classifier.out_proj.bias"],
        readsFirstToken: true,
        init: (keys) => ({ classifier: { dense: denseInit(keys, h, h, std), out_proj: denseInit(keys, h, n, std) } }),
        apply: (p, hidden, _mask, drop) =>
          dense(p.classifier.out_proj, drop(k.tanh(dense(p.classifier.dense, drop(firstToken(hidden), 0))), 1)),
      };
    }
    case "llama":
    case "gpt2": {
      const h = c.model_type === "llama" ? c.hidden_size : c.n_embd;
      return {
        names: ["score.weight"],
        readsFirstToken: false,
        init: (keys) => ({ score: { weight: normalInit(keys.next(), [n, h], std) } }),
        apply: (p, hidden, mask) => linear(p.score.weight, lastRealToken(hidden, mask)),
      };
    }
    default:
      throw new Error(
        `model_type ${JSON.stringify((c as { model_type: unknown }).model_type)} has no sequence-classification head in Kiln`,
      );
  }
}

/** transformers' rate for an encoder's classification head: classifier_dropout, else hidden_dropout_prob. */
function classifierDropout(c: ClassifierConfig): number {
  if (c.model_type !== "bert" && c.model_type !== "roberta") return 0;
  const own = (c as { classifier_dropout?: number | null }).classifier_dropout;
  return own ?? (c as { hidden_dropout_prob: number }).hidden_dropout_prob;
}

/** The base model's part of a parameter tree (its prefix's subtree), merged with the head's. */
function merge(base: Params, head: Params): Params {
  const out: Params = { ...base };
  for (const [key, value] of Object.entries(head))
    out[key] = out[key] && typeof value === "object" && !(value instanceof k.Array) ? { ...out[key], ...value } : value;
  return out;
}

/** The classifier a config describes: its family's base model with that family's classification head. */
export function createSequenceClassifier(config: ClassifierConfig): SequenceClassifier {
  const spec = modelSpec(config);
  const base = spec.create(config) as LanguageModel & {
    hidden(params: Params, ids: k.Array, mask: k.Array, opts?: Record<string, unknown>): k.Array;
  };
  const head = headOf(config);
  const prefix = base.baseModelPrefix;
  const architecture = CLASSIFIER_ARCHITECTURES[config.model_type]!;
  const positions = spec.positionsField;
  const headDropout = classifierDropout(config);
  // The head's sites follow the encoder's (only BERT and RoBERTa heads drop out).
  const firstHeadSite = headDropout ? encoderDropoutSites((config as { num_hidden_layers: number }).num_hidden_layers) : 0;
  // The forward pass's arguments are checked where the user hands them over, named as this class's (at
  // trace time: a compiled program pays nothing).
  const check = {
    where: `${architecture}.logits`,
    maxLength: spec.maxLength(config),
    limitSource:
      `config ${positions} ${String(config[positions])}` +
      (config.model_type === "roberta" ? `, counted from pad_token_id ${config.pad_token_id} + 1` : ""),
    causal: spec.kind.causal,
  };
  return {
    task: "sequence-classification",
    config,
    architecture,
    baseModelPrefix: prefix,
    // The language-model head (and its ties) is not part of a classifier.
    tiedWeights: {},
    headNames: head.names,
    init(key: k.Array): Params {
      const full = base.init(k.foldIn(key, 0)) as Params;
      return merge({ [prefix]: full[prefix] }, head.init(new KeySequence(k.foldIn(key, 1))));
    },
    logits(params, inputIds, attentionMask, opts = {}) {
      checkForwardInputs(check, params, inputIds, attentionMask, opts);
      const hidden = base.hidden(
        params,
        inputIds,
        attentionMask,
        (head.readsFirstToken ? { ...opts, firstTokenOnly: true } : opts) as Record<string, unknown>,
      );
      const sites = new DropoutSites(opts.dropoutKey ?? null, opts.exampleOffset ?? 0);
      const drop = (x: k.Array, site: number) => sites.apply(x, headDropout, firstHeadSite + site);
      return head.apply(params, hidden, attentionMask, drop).astype("f32");
    },
  };
}
