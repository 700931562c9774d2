// What every model Kiln trains has in common, whatever its objective: a Hugging Face config, an init
// that builds the parameter tree (leaf paths are the checkpoint names), and the naming facts that
// save_pretrained/from_pretrained need. Masked LMs (masked-lm.ts) and causal LMs (causal-lm.ts) extend it.
import type * as k from "../core/index.js";

/** A parameter tree of any model (each family's own type, e.g. RobertaParams, says what it holds). */
export type Params = Record<string, any>;

/** The fields of a Hugging Face config.json that every model has. */
export interface BaseModelConfig {
  model_type: string;
  architectures: string[];
  vocab_size: number;
  [extra: string]: unknown;
}

/** `P` is the model's parameter tree: what init makes and every forward pass takes. */
export interface LanguageModel<P extends object = Params> {
  readonly config: BaseModelConfig;
  init(key: k.Array): P;
  /** Checkpoint names that Hugging Face ties to another parameter (stored once). */
  readonly tiedWeights: Readonly<Record<string, string>>;
  /**
   * The base model's name prefix (transformers' base_model_prefix: "roberta", "bert", "model",
   * "transformer"). Parameters outside it are the task head.
   */
  readonly baseModelPrefix: string;
}
