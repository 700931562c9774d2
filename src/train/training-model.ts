// The model a training run trains, before anything compiles: its config (from a preset, a config.json or
// a model directory: model-source.ts) checked against the tokenizer, the data's record length and, for a
// resumed run, the checkpoint's tokenizer and optimizer; then the model itself, with the pretrained
// weights it starts from and its parameter count.
import * as k from "../core/index.js";
import { loadTokenizer, type Tokenizer } from "../text/index.js";
import { createModel, loadModel, type ModelConfig } from "../models/index.js";
import type { MaskedLMInit } from "../models/masked-lm.js";
import type { Params } from "../models/language-model.js";
import type { TrainingTask } from "./objectives/objective.js";
import { listCheckpoints } from "./checkpoint.js";
import { dataRecordLength } from "./data-probe.js";
import { checkSameOptimizer, checkSameTokenizer, trainingModelConfig, type ModelSource } from "./model-source.js";
import { checkModelStart, checkTaskSettings } from "./trainer-options-check.js";
import { modelTaskOf, taskSpec } from "./tasks/index.js";
import type { FitArgs } from "./trainer-options.js";

/** Settings of trainingModelPlan. */
export interface TrainingModelSettings {
  task: TrainingTask;
  source: ModelSource;
  /** A local tokenizer directory (tokenizer.json). */
  tokenizerDir: string;
  /** The training shards: their records' length is the model's sequence length. */
  trainData: string | string[];
  /** The record length the data must have (default: what the shards hold). */
  maxLength?: number | undefined;
  /** A resumed run: its output directory, whose newest checkpoint must have this tokenizer and optimizer. */
  resume?: { outputDir: string; optimizer: string } | undefined;
}

/** The tokenizer, the data's record length and the checked model config. */
export interface TrainingModelPlan {
  tokenizer: Tokenizer;
  maxLength: number;
  config: ModelConfig;
}

export async function trainingModelPlan(s: TrainingModelSettings): Promise<TrainingModelPlan> {
  const tokenizer = await loadTokenizer(s.tokenizerDir);
  // A resumed run continues with the tokenizer and optimizer its checkpoint was trained with.
  const resumeFrom = s.resume ? (await listCheckpoints(s.resume.outputDir)).at(-1) : undefined;
  if (resumeFrom) await checkSameTokenizer(resumeFrom.path, s.tokenizerDir, tokenizer);
  if (resumeFrom) await checkSameOptimizer(resumeFrom.path, s.resume!.optimizer);
  const maxLength = await dataRecordLength(s.trainData, s.maxLength);
  const config = await trainingModelConfig(s.task, s.source, tokenizer, s.tokenizerDir, maxLength);
  return { tokenizer, maxLength, config };
}

/** The model to fit, the weights it starts from (initFrom), what loading them noted, and its parameter count. */
export interface TrainingModel {
  model: FitArgs["model"];
  params: Params | undefined;
  /** Loading notes (a head initialized fresh, …), for the user. */
  notices: string[];
  parameterCount: number;
}

/**
 * Builds the model of `config` (positions started as `positionInit` says) and, with `initFrom`, loads its
 * weights onto `device` (a head the directory lacks is initialized from `seed`).
 */
export async function trainingModel(
  config: ModelConfig,
  o: { task: TrainingTask; initFrom?: string | undefined; positionInit?: MaskedLMInit["positionInit"]; seed: number; device: k.Device },
): Promise<TrainingModel> {
  checkTaskSettings(o.task, { positionInit: o.positionInit }, "trainingModel");
  checkModelStart(o, "trainingModel");
  const model = createModel(config, o.positionInit !== undefined ? { positionInit: o.positionInit } : {});
  const init = o.initFrom
    ? await loadModel(o.initFrom, { task: modelTaskOf(taskSpec(o.task)), missingHead: "init", seed: o.seed, device: o.device })
    : undefined;
  const parameterCount = k
    .leaves<k.Array>(k.evalShape((key: k.Array) => model.init(key), k.randomKey(0)))
    .reduce((n, a) => n + a.shape.reduce((x, y) => x * y, 1), 0);
  return { model, params: init?.params, notices: init?.notices ?? [], parameterCount };
}
