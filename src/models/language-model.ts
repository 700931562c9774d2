// What every model Kiln trains has in common, whatever its objective: a Hugging Face config, an init
// that builds the parameter tree (leaf paths are the checkpoint names), and the naming facts that
// save_pretrained/from_pretrained need. Masked LMs (masked-lm.ts) and causal LMs (causal-lm.ts) extend it.
import type * as k from "../core/index.js";

/** A model's parameters: a tree of arrays keyed by name. */
export type Params = Record<string, any>;

/** The fields of a Hugging Face config.json that every model has. */
export interface BaseModelConfig {
  model_type: string;
  architectures: string[];
  vocab_size: number;
  [extra: string]: unknown;
}

/** What every model has: its config, its parameter initializer, and how its parameters map to Hugging Face checkpoint names. */
export interface LanguageModel {
  readonly config: BaseModelConfig;
  init(key: k.Array): Params;
  /** Checkpoint names that Hugging Face ties to another parameter (stored once). */
  readonly tiedWeights: Readonly<Record<string, string>>;
  /**
   * The base model's name prefix (transformers' base_model_prefix: "roberta", "bert", "model",
   * "transformer"). Parameters outside it are the task head.
   */
  readonly baseModelPrefix: string;
}
