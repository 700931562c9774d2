// What Kiln knows about one model family (roberta, bert, llama, gpt2, …), as data: its config.json's
// model_type and architecture, how a config is checked and completed, the presets it ships, how the
// model is built, how long a sequence it takes. Each family's folder exports one ModelSpec and
// registry.ts lists them; creation, config reading, loading, saving and the CLI's presets read the
// registry instead of naming families.
import type { BaseModelConfig, LanguageModel } from "./language-model.js";
import type { MaskedLMInit } from "./masked-lm.js";
import type * as k from "../core/index.js";
import type { ChecksumManifest } from "./file-digests.js";
import type { PretrainedModel } from "./masked-lm-kind.js";
import type { PretrainedCausalModel } from "./causal-lm-kind.js";

/** What a family's models are trained for: masked-token prediction or next-token prediction. */
export type ModelTask = "mlm" | "causal-lm";

/** What a kind's loader gets: the directory, the model its config.json describes, and how to load it. */
export interface KindLoad {
  dir: string;
  config: BaseModelConfig;
  /** The model of `config` (createModel's), to fill. */
  model: LanguageModel;
  spec: ModelSpec<any, LanguageModel>;
  /** The device, and what to do with a head the directory lacks (a masked LM's: "error" or "init" from `seed`). */
  opts: { device?: k.Device; missingHead?: "error" | "init"; seed?: number };
  /** The directory's checksums.json, when Kiln wrote it. */
  digests?: ChecksumManifest | undefined;
}

/**
 * A kind of model, shared by the families of one task (masked-lm-kind.ts, causal-lm-kind.ts): the task,
 * the model in words, whether attention is causal, and how a directory of it loads (what may be missing).
 */
export interface ModelKind {
  readonly task: ModelTask;
  /** The model in words, in errors: "a masked language model". */
  readonly words: string;
  /**
   * Whether a position attends to earlier ones only: the forward pass takes a KV cache's options, the
   * config may name no pad id (padding is masked out, never read), a tokenizer copied beside it gets a
   * decoder's template, and a classifier pools its last real token.
   */
  readonly causal: boolean;
  load(w: KindLoad): Promise<PretrainedModel | PretrainedCausalModel>;
}

/**
 * The ids a preset takes from its tokenizer. A Kiln Tokenizer fits as is: its cls/sep tokens (<s>,
 * </s>) serve as bos/eos where no bosId/eosId is given. Masked-LM presets need padId, clsId and sepId.
 */
export interface PresetTokenizerIds {
  vocabSize: number;
  padId?: number | null;
  bosId?: number | null;
  eosId?: number | null;
  clsId?: number;
  sepId?: number;
}

/** A preset: the architecture's fields (without the tokenizer's) and the sequence length it is sized for. */
export interface Preset {
  readonly fields: Readonly<Record<string, unknown>>;
  readonly maxLength: number;
}

/** A model family's entry in the registry: its model_type, task, config validation, presets and constructor. */
export interface ModelSpec<
  C extends BaseModelConfig = BaseModelConfig,
  M extends LanguageModel = LanguageModel,
  T extends ModelTask = ModelTask,
> {
  /** config.json's model_type. */
  readonly modelType: C["model_type"];
  readonly task: T;
  /** The kind of model it is (its task's: masked or causal LM), whose loader reads its directories. */
  readonly kind: ModelKind;
  /** transformers' class with the task's head (config.json's architectures): RobertaForMaskedLM, LlamaForCausalLM, … */
  readonly architecture: string;
  /** transformers' class of the base model without a head (RobertaModel, LlamaModel, …), named in notices. */
  readonly baseArchitecture: string;
  /** The config field that bounds the sequence length, named in errors (max_position_embeddings, n_positions). */
  readonly positionsField: string;
  /** Checks a config.json object and fills in transformers' defaults; `where` names its source in errors. */
  validate(raw: Record<string, unknown>, where: string): C;
  /** The presets of this family, by name (their order is the order `--help` lists them in). */
  readonly presets: Readonly<Record<string, Preset>>;
  /** A preset's config with the vocabulary and special ids taken from the tokenizer, for sequences of `maxLength`. */
  presetConfig(preset: Preset, tok: PresetTokenizerIds, maxLength: number, where: string): C;
  create(config: C, init?: MaskedLMInit): M;
  /** The longest sequence a config has positions for. */
  maxLength(config: C): number;
  /** Depth and width (transformers' num_hidden_layers and hidden_size, whatever the config calls them). */
  layersAndWidth(config: C): { layers: number; width: number };
  /** Whether the head is stored tied to the token embeddings (config.json's tie_word_embeddings when saved). */
  tiesHead(config: C): boolean;
}
