// The model a training run starts from: a preset, a Hugging Face config.json, or a pretrained model
// directory (initFrom), for a task (a masked LM for mlm, a causal LM for causal-lm), checked against the
// tokenizer and the data's record length before anything compiles. Refusals are OptionErrors naming
// the setting that chose the model.
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { OptionError } from "../core/option-error.js";
import { loadTokenizer, vocabularyDifference, type Tokenizer } from "../text/index.js";
import {
  isCausalConfig,
  modelSpec,
  modelTask,
  presetConfig,
  presetNames,
  presetTask,
  readModelConfig,
  type ModelConfig,
} from "../models/index.js";
import type { TrainingTask } from "./objectives/objective.js";
import type { ModelTask } from "../models/spec.js";
import { TASK_SPECS, taskSpec } from "./tasks/index.js";

/** Exactly one of the three. */
export interface ModelSource {
  preset?: string;
  /** A config.json path: the model starts from scratch with that architecture. */
  modelConfig?: string;
  /** A model directory (config.json, model.safetensors): the model starts from its weights. */
  initFrom?: string;
}

const KIND = (task: TrainingTask) => taskSpec(task).kind;

/** Which setting chose the model, and its value. */
function chosenBy(source: ModelSource): { option: keyof ModelSource; value: string } {
  const given = (["preset", "modelConfig", "initFrom"] as const).filter((o) => source[o] !== undefined);
  if (given.length !== 1)
    throw new OptionError({
      option: given[1] ?? "preset",
      value: given.length ? source[given[1]!] : undefined,
      why: given.length ? `is given with ${given[0]}` : "is missing",
      fix: "Give exactly one of preset and modelConfig, or initFrom alone",
      where: "the model of a training run",
    });
  return { option: given[0]!, value: source[given[0]!]! };
}

/**
 * The model config `source` names for `task`, agreeing with the tokenizer (vocabulary size, pad id; for
 * initFrom, the model's own tokenizer when its directory holds one) and holding `maxLength` positions.
 */
export async function trainingModelConfig(
  task: TrainingTask,
  source: ModelSource,
  tokenizer: Tokenizer,
  tokenizerDir: string,
  maxLength: number,
): Promise<ModelConfig> {
  const { option, value } = chosenBy(source);
  const refuse = (why: string, fix?: string) =>
    new OptionError({ option, value, why, ...(fix ? { fix } : {}), where: "the model of a training run" });
  let config: ModelConfig;
  if (source.preset !== undefined) {
    if (taskSpec(task).labelledData)
      throw refuse(
        `is a preset, but ${KIND(task)} is fine-tuned from a pretrained model`,
        "Give initFrom: a model directory (a masked or causal LM, or a classifier) to start from",
      );
    if (presetTask(source.preset) === undefined) {
      const other = TASK_SPECS.map((t) => t.name).find((t) => t !== task)!;
      throw refuse(
        "is unknown",
        `The presets of task "${task}": ${presetNames(task as ModelTask).join(", ")} ` +
          `(task "${other}": ${presetNames(other as ModelTask).join(", ")})`,
      );
    }
    config = presetConfig(source.preset, tokenizer, maxLength);
  } else config = await readModelConfig(source.initFrom !== undefined ? join(source.initFrom, "config.json") : source.modelConfig!);
  const modelIs = modelTask(config);
  if (modelIs !== task)
    throw refuse(
      `is ${KIND(modelIs)} (${config.model_type}), not ${KIND(task)} as task "${task}" trains`,
      `Train it with task "${modelIs}", or give ${KIND(task)}`,
    );
  const the = source.initFrom !== undefined ? "the model's " : "";
  if (config.vocab_size !== tokenizer.vocabSize)
    throw refuse(
      `${the}vocab_size ${config.vocab_size} differs from the tokenizer's ${tokenizer.vocabSize} (${tokenizerDir})`,
      source.initFrom !== undefined ? "Pass the tokenizer the model was trained with" : "Give a config for this tokenizer's vocabulary",
    );
  // A causal LM may have no pad id (padding is masked out, never read); when it names one, it is the tokenizer's.
  const pad = config.pad_token_id;
  if (pad !== tokenizer.padId && !(isCausalConfig(config) && (pad === null || pad === undefined)))
    throw refuse(`${the}pad_token_id ${pad} differs from the tokenizer's pad id ${tokenizer.padId} (${tokenizerDir})`);
  if (source.initFrom !== undefined) await checkSameTokenizer(source.initFrom, tokenizerDir, tokenizer);
  const spec = modelSpec(config);
  const longest = spec.maxLength(config);
  if (longest < maxLength)
    throw refuse(
      `takes sequences of at most ${longest} tokens (${spec.positionsField} ${String(config[spec.positionsField])}), ` +
        `but the data holds records of ${maxLength}`,
    );
  return config;
}

/**
 * Refuses `tokenizer` when `dir` (a model or checkpoint directory) holds another tokenizer: ids would
 * silently mean other pieces than the ones the weights learned.
 */
export async function checkSameTokenizer(dir: string, tokenizerDir: string, tokenizer: Tokenizer): Promise<void> {
  if (!existsSync(join(dir, "tokenizer.json"))) return;
  const refuse = (why: string, fix: string) =>
    new OptionError({ option: "tokenizer", value: tokenizerDir, why, fix, where: "the model of a training run" });
  let own: Tokenizer;
  try {
    own = await loadTokenizer(dir);
  } catch (e) {
    throw refuse(
      `cannot be checked against the tokenizer of ${dir}, which cannot be read: ${(e as Error).message}`,
      `Repair or remove ${join(dir, "tokenizer.json")}`,
    );
  }
  const d = vocabularyDifference(tokenizer, own);
  if (d)
    throw refuse(
      `is not the tokenizer of ${dir}: ` +
        `id ${d.id} is ${JSON.stringify(d.a)} there but ${JSON.stringify(d.b)} in ${join(dir, "tokenizer.json")}`,
      `Pass the tokenizer in ${dir}`,
    );
}

/** A resumed run continues with the optimizer its checkpoint was trained with (the state saved is that optimizer's). */
export async function checkSameOptimizer(checkpoint: string, optimizer: string): Promise<void> {
  let trainedWith: string;
  try {
    trainedWith = JSON.parse(await readFile(join(checkpoint, "trainer_state.json"), "utf8")).run_settings?.optimizer ?? "adamw";
  } catch {
    return; // a damaged checkpoint: the Trainer says why and falls back past it
  }
  if (trainedWith !== optimizer)
    throw new OptionError({
      option: "optimizer",
      value: optimizer,
      why: `differs from the optimizer of ${checkpoint}, ${JSON.stringify(trainedWith)}, whose state a resumed run continues`,
      fix: `Resume with optimizer ${JSON.stringify(trainedWith)}, or train into another outputDir`,
      where: "resume",
    });
}
