// `kiln train`'s model: the config that --preset, --model-config or --init-from names, for the task of
// --task (a masked LM for mlm, a causal LM for causal-lm), checked against the tokenizer and the shards
// before anything compiles.
import { existsSync } from "node:fs";
import { join } from "node:path";
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
import type { TrainingTask } from "../train/objectives/objective.js";
import { taskSpec } from "../train/tasks/index.js";
import { TASKS } from "./common-flags.js";
import { UsageError } from "./args.js";

const KIND = (task: TrainingTask) => taskSpec(task).kind;

function taskOf(config: ModelConfig): TrainingTask {
  return modelTask(config);
}

export interface ModelFlags {
  preset?: string;
  modelConfig?: string;
  initFrom?: string;
  tokenizerDir: string;
}

/** The model config the flags name for `task`, agreeing with the tokenizer and holding `maxLength` positions. */
export async function trainModelConfig(task: TrainingTask, f: ModelFlags, tokenizer: Tokenizer, maxLength: number): Promise<ModelConfig> {
  let config: ModelConfig;
  let where: string;
  if (f.preset !== undefined) {
    if (presetTask(f.preset) === undefined) {
      const other = TASKS.find((t) => t !== task)!;
      throw new UsageError(
        `--preset "${f.preset}" is unknown; presets: ${presetNames(task).join(", ")}` +
          ` (--task ${other}: ${presetNames(other).join(", ")})`,
      );
    }
    config = presetConfig(f.preset, tokenizer, maxLength);
    where = `--preset ${f.preset}`;
  } else {
    const path = f.initFrom !== undefined ? join(f.initFrom, "config.json") : f.modelConfig!;
    config = await readModelConfig(path);
    where = f.initFrom !== undefined ? `--init-from ${f.initFrom}` : path;
  }
  if (taskOf(config) !== task)
    throw new UsageError(
      `${where} is ${KIND(taskOf(config))} (${config.model_type}), but --task is ${task}` +
        (task === "mlm" ? ": add --task causal-lm to train it" : `: train it with --task mlm (the default), or give ${KIND(task)}`),
    );
  const the = f.initFrom !== undefined ? "the model's " : "";
  if (config.vocab_size !== tokenizer.vocabSize)
    throw new UsageError(
      `${where}: ${the}vocab_size ${config.vocab_size} differs from the tokenizer's ${tokenizer.vocabSize}` +
        (f.initFrom !== undefined ? ` (${f.tokenizerDir}); pass the tokenizer the model was trained with` : ""),
    );
  // A causal LM may have no pad id (padding is masked out, never read); when it names one, it is the tokenizer's.
  const pad = config.pad_token_id;
  if (pad !== tokenizer.padId && !(isCausalConfig(config) && (pad === null || pad === undefined)))
    throw new UsageError(`${where}: ${the}pad_token_id ${pad} differs from the tokenizer's pad id ${tokenizer.padId}`);
  if (f.initFrom !== undefined) await checkSameTokenizer(f.initFrom, where, f.tokenizerDir, tokenizer);
  const spec = modelSpec(config);
  const longest = spec.maxLength(config);
  if (longest < maxLength)
    throw new UsageError(
      `the model takes sequences of at most ${longest} tokens ` +
        `(${spec.positionsField} ${String(config[spec.positionsField])}), but the shards hold ${maxLength}`,
    );
  return config;
}

/**
 * Refuses --tokenizer when `dir` (a model or checkpoint directory) holds another tokenizer: ids would
 * silently mean other pieces than the ones the weights learned.
 */
export async function checkSameTokenizer(dir: string, where: string, tokenizerDir: string, tokenizer: Tokenizer): Promise<void> {
  if (!existsSync(join(dir, "tokenizer.json"))) return;
  let own: Tokenizer;
  try {
    own = await loadTokenizer(dir);
  } catch (e) {
    throw new UsageError(
      `${where}: the model's own tokenizer cannot be read, so --tokenizer cannot be checked against it: ${(e as Error).message}`,
    );
  }
  const d = vocabularyDifference(tokenizer, own);
  if (d)
    throw new UsageError(
      `${where}: --tokenizer ${tokenizerDir} is not the model's tokenizer: ` +
        `id ${d.id} is ${JSON.stringify(d.a)} there but ${JSON.stringify(d.b)} in ${join(dir, "tokenizer.json")} ` +
        `(pass --tokenizer ${dir})`,
    );
}
