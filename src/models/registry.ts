// The model families Kiln builds, one ModelSpec each (in models/<family>/spec.ts), and what is read
// from them: a config.json of any family, a preset by name, the model a config describes, its
// architecture and length limit. Adding a family is its folder and one line in MODEL_SPECS.
import { checkConfigBounds } from "./config-bounds.js";
import { readJsonObject } from "./config.js";
import type { LanguageModel } from "./language-model.js";
import type { MaskedLMInit } from "./masked-lm.js";
import type { ModelSpec, ModelTask, Preset, PresetTokenizerIds } from "./spec.js";
import { robertaSpec } from "./roberta/spec.js";
import { bertSpec } from "./bert/spec.js";
import { llamaSpec } from "./llama/spec.js";
import { gpt2Spec } from "./gpt2/spec.js";

/** Every family, masked LMs first (the order presets are listed in). */
export const MODEL_SPECS = [robertaSpec, bertSpec, llamaSpec, gpt2Spec] as const;

type Spec = (typeof MODEL_SPECS)[number];
type ConfigOf<S> = S extends { validate(raw: Record<string, unknown>, where: string): infer C } ? C : never;
type ModelOf<S> = S extends { create(config: never, init?: MaskedLMInit): infer M } ? M : never;
/** The config of a family of `task`. */
export type TaskConfig<T extends ModelTask> = ConfigOf<Extract<Spec, { task: T }>>;
/** The model of a family of `task`. */
export type TaskModel<T extends ModelTask> = ModelOf<Extract<Spec, { task: T }>>;
/** Any config Kiln builds a model from. */
export type ModelConfig = ConfigOf<Spec>;
/** A decoder's config (model_type llama or gpt2). */
export type CausalConfig = TaskConfig<"causal-lm">;
export type CausalModelType = CausalConfig["model_type"];
/** The name of a preset Kiln ships (of `task`'s families). */
export type PresetName<T extends ModelTask = ModelTask> =
  Extract<Spec, { task: T }> extends infer S ? (S extends { presets: infer P } ? keyof P & string : never) : never;
/** The presets of one family, by its model_type ("roberta": "mlm-tiny" | "mlm-small" | …). */
export type FamilyPresetName<M extends string> =
  Extract<Spec, { modelType: M }> extends infer S ? (S extends { presets: infer P } ? keyof P & string : never) : never;
/**
 * `string` itself, never a string literal: where a name may be read at run time (a flag, a file) and is
 * checked then, a literal in the code must still be one of the known names.
 */
export type RuntimeString<S extends string> = string extends S ? S : never;
/** The config a preset's name gives. */
export type PresetConfig<N extends string> = Spec extends infer S
  ? S extends { presets: infer P }
    ? N extends keyof P
      ? ConfigOf<S>
      : never
    : never
  : never;

// The registry holds specs of different config types; here they are used through their common shape.
const SPECS = MODEL_SPECS as readonly ModelSpec<any, LanguageModel>[];

/** The spec of a model_type, or undefined. */
export function findModelSpec(modelType: unknown): ModelSpec<any, LanguageModel> | undefined {
  return SPECS.find((s) => s.modelType === modelType);
}

/** The model_types of a task's families ("roberta", "bert"), or of all. */
export function modelTypes(task?: ModelTask): string[] {
  return SPECS.filter((s) => task === undefined || s.task === task).map((s) => s.modelType);
}

/** The spec of a config's model_type; a config that passed validation always has one. */
export function modelSpec(c: { model_type: unknown }): ModelSpec<any, LanguageModel> {
  const spec = findModelSpec(c.model_type);
  if (!spec) throw new Error(`model_type ${JSON.stringify(c.model_type)} is not supported (${modelTypes().join(", ")})`);
  return spec;
}

/** What a config's model is trained for. */
export function modelTask(c: { model_type: unknown }): ModelTask {
  return modelSpec(c).task;
}

/** Whether `c` is the config of a causal LM family (Llama, GPT-2): its kind of model attends causally. */
export function isCausalConfig(c: { model_type: unknown }): c is CausalConfig {
  return findModelSpec(c.model_type)?.kind.causal === true;
}

/** Any config Kiln builds a model from: masked LMs (roberta, bert) and causal LMs (llama, gpt2). */
export function validateModelConfig(raw: Record<string, unknown>, where: string): ModelConfig {
  const spec = findModelSpec(raw.model_type);
  if (!spec) throw new Error(`${where}: model_type ${JSON.stringify(raw.model_type)} is not supported (${modelTypes().join(", ")})`);
  checkConfigBounds(raw, where);
  return spec.validate(raw, where) as ModelConfig;
}

/** A decoder's config (model_type "llama" or "gpt2"); `where` names its source in errors. */
export function validateCausalConfig(raw: Record<string, unknown>, where: string): CausalConfig {
  const types = modelTypes("causal-lm").map((t) => JSON.stringify(t));
  if (!types.includes(JSON.stringify(raw.model_type)))
    throw new Error(
      `${where}: model_type must be ${types.join(" or ")} for a causal language model, got ${JSON.stringify(raw.model_type)}`,
    );
  return validateModelConfig(raw, where) as CausalConfig;
}

/** Reads any supported config.json (masked or causal LM), dispatching on its model_type. */
export async function readModelConfig(path: string): Promise<ModelConfig> {
  return validateModelConfig(await readJsonObject(path), path);
}

/** The longest sequence a config has positions for. */
export function maxLengthOf(c: ModelConfig): number {
  return modelSpec(c).maxLength(c);
}

/** Every preset, by name, with its family. */
function presetTable(): Map<string, { spec: ModelSpec<any, LanguageModel>; preset: Preset }> {
  const table = new Map<string, { spec: ModelSpec<any, LanguageModel>; preset: Preset }>();
  for (const spec of SPECS) for (const [name, preset] of Object.entries(spec.presets)) table.set(name, { spec, preset });
  return table;
}

const PRESETS = presetTable();

/** The preset names of a task (in the order `--help` lists them), or of all tasks. */
export function presetNames<T extends ModelTask = ModelTask>(task?: T): PresetName<T>[] {
  return [...PRESETS].filter(([, p]) => task === undefined || p.spec.task === task).map(([name]) => name as PresetName<T>);
}

/** The task a preset trains for, or undefined for an unknown name. */
export function presetTask(name: string): ModelTask | undefined {
  return PRESETS.get(name)?.spec.task;
}

/**
 * A preset's config with the vocabulary and special ids taken from the tokenizer (the tokenizer's own
 * pad id, not a reference model's), with positions for `maxLength` tokens (default: the preset's).
 */
export function presetConfig<N extends PresetName>(name: N, tok: PresetTokenizerIds, maxLength?: number): PresetConfig<N>;
/** A name known only at run time (a literal must be a PresetName): checked when called. */
export function presetConfig<S extends string>(name: S & RuntimeString<S>, tok: PresetTokenizerIds, maxLength?: number): ModelConfig;
export function presetConfig(name: string, tok: PresetTokenizerIds, maxLength?: number): ModelConfig {
  const p = PRESETS.get(name);
  if (!p) throw new Error(`unknown preset "${name}"; presets: ${presetNames().join(", ")}`);
  return p.spec.presetConfig(p.preset, tok, maxLength ?? p.preset.maxLength, `preset ${name}`) as ModelConfig;
}
