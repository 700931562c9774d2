// The Trainer's options and fit's arguments, checked before anything is set up: a name the Trainer does
// not know (`max_steps`, `learning_rate` in the wrong place), a string where a number belongs
// (`maxSteps: "2"`, which `>` would compare as a string), a missing outputDir, or a directory name where
// a dataset belongs are refused with the option's name, the value as given and the fix, instead of
// surfacing later as an unrelated failure ("the global batch of undefined does not split …").
import { checkOptions } from "../core/check-options.js";
import { OptionError } from "../core/option-error.js";
import { TFRecordDataset } from "../data/pipeline/dataset.js";
import { ClassificationDataset } from "../data/pipeline/classification-dataset.js";
import { DEFAULT_MASK_FRACTION, DEFAULT_RANDOM_FRACTION } from "../data/mlm/mask.js";
import { OPTIMIZER_NAMES } from "../optim/by-name.js";
import { PRECISIONS } from "../optim/precision.js";
import { SCHEDULE_SHAPES } from "../optim/schedules.js";
import { checkDataFitsModel } from "./data-probe.js";
import type { TrainingTask } from "./objectives/objective.js";
import { TASK_SPECS } from "./tasks/index.js";
import { budgetSeconds } from "./time-budget.js";
import type { FitArgs, MaskingSettings, OptimizerSettings, TrainerOptions } from "./trainer.js";

/** Every TrainerOptions name (the `satisfies` keeps the list and the interface together). */
const TRAINER_OPTIONS = [
  "outputDir",
  "maxSteps",
  "maxTime",
  "clock",
  "epochs",
  "evalEvery",
  "evaluations",
  "evalAtStart",
  "logEvery",
  "seed",
  "gradientAccumulation",
  "stepsPerExecution",
  "loops",
  "clipNorm",
  "optimizer",
  "checkpointEvery",
  "keepCheckpoints",
  "resume",
  "overwrite",
  "onNonFinite",
  "callbacks",
  "precision",
  "lossScale",
  "accelerator",
  "devices",
  "numNodes",
  "coordinationStore",
  "executor",
  "pjrtPlugin",
  "notice",
  "strategy",
  "progress",
  "loggers",
  "signal",
] as const satisfies readonly (keyof TrainerOptions)[];

const FIT_ARGS = [
  "model",
  "params",
  "optimizer",
  "train",
  "eval",
  "masking",
  "labelCapacity",
  "classWeights",
  "tokenizerDir",
  "task",
] as const satisfies readonly (keyof FitArgs)[];

const OPTIMIZER_SETTINGS = [
  "learningRate",
  "weightDecay",
  "warmupSteps",
  "warmupFraction",
  "schedule",
  "decayFraction",
  "beta1",
  "beta2",
  "eps",
] as const satisfies readonly (keyof OptimizerSettings)[];

const MASKING = [
  "maskTokenId",
  "vocabSize",
  "specialIds",
  "mlmProbability",
  "evalMlmProbability",
  "maskFraction",
  "randomFraction",
] as const satisfies readonly (keyof MaskingSettings)[];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Throws an OptionError for the first wrong Trainer option (called first thing by the Trainer's constructor). */
export function checkTrainerOptions(opts: unknown): void {
  const where = "Trainer";
  if (!isObject(opts))
    throw new OptionError({
      where,
      option: "options",
      value: opts,
      why: "is not an options object",
      fix: 'Pass new Trainer({ outputDir: "runs/1", … })',
    });
  checkOptions(where, opts, TRAINER_OPTIONS, {
    ints: [
      "maxSteps",
      "epochs",
      "evalEvery",
      "evaluations",
      "logEvery",
      "seed",
      "gradientAccumulation",
      "stepsPerExecution",
      "checkpointEvery",
      "keepCheckpoints",
      "numNodes",
    ],
    positive: ["epochs", "evaluations", "logEvery", "gradientAccumulation", "stepsPerExecution", "keepCheckpoints", "numNodes", "clipNorm"],
    // maxSteps 0 trains nothing (the initial model is saved); too little data for one batch is fit's to explain.
    nonNegative: ["maxSteps", "evalEvery", "seed", "checkpointEvery"],
    numbers: ["clipNorm"],
    booleans: ["evalAtStart", "resume", "overwrite", "progress"],
    strings: ["outputDir", "pjrtPlugin"],
    choices: {
      onNonFinite: ["stop", "skip"],
      precision: PRECISIONS,
      accelerator: ["auto", "cpu", "gpu", "tpu"],
      executor: ["ort", "xla"],
    },
  });
  if (opts.outputDir === undefined || opts.outputDir === "")
    throw new OptionError({
      where,
      option: "outputDir",
      value: opts.outputDir,
      why: "is required",
      fix: 'Pass the directory for checkpoints, logs and the final model, e.g. outputDir: "runs/1"',
    });
  if (opts.maxTime !== undefined) budgetSeconds(opts.maxTime, where);
  if (opts.evaluations !== undefined && opts.evalEvery)
    throw new OptionError({
      where,
      option: "evaluations",
      value: opts.evaluations,
      why: `and evalEvery ${opts.evalEvery} both say when to evaluate`,
      fix: "Give one of them: evaluations spreads N evaluations over the run, evalEvery evaluates every N steps",
    });
  if (opts.clock !== undefined && typeof opts.clock !== "function")
    throw new OptionError({ where, option: "clock", value: opts.clock, why: "is not a function", fix: "Pass () => seconds" });
  if (opts.notice !== undefined && typeof opts.notice !== "function")
    throw new OptionError({ where, option: "notice", value: opts.notice, why: "is not a function", fix: "Pass (line) => …" });
  const optimizer = opts.optimizer;
  const isOptimizerObject = isObject(optimizer) && typeof optimizer.init === "function" && typeof optimizer.update === "function";
  if (optimizer !== undefined && !isOptimizerObject && !(OPTIMIZER_NAMES as readonly unknown[]).includes(optimizer))
    throw new OptionError({
      where,
      option: "optimizer",
      value: optimizer,
      why: `is not one of ${OPTIMIZER_NAMES.map((n) => JSON.stringify(n)).join(", ")} or an Optimizer (an object with init and update)`,
      fix:
        typeof optimizer === "string"
          ? `Pass one of ${OPTIMIZER_NAMES.join(", ")}`
          : "Pass an optimizer's name, or an Optimizer from kiln/optim",
    });
  const strategy = opts.strategy;
  if (strategy !== undefined && !isObject(strategy) && !["auto", "one-device", "data-parallel"].includes(strategy as string))
    throw new OptionError({
      where,
      option: "strategy",
      value: strategy,
      why: 'is not "auto", "one-device", "data-parallel" or a Strategy',
    });
  const devices = opts.devices;
  const deviceList = Array.isArray(devices) && devices.every((d) => Number.isSafeInteger(d) && d >= 0);
  if (devices !== undefined && devices !== "auto" && !deviceList && !(Number.isSafeInteger(devices) && (devices as number) >= 1))
    throw new OptionError({
      where,
      option: "devices",
      value: devices,
      why: 'is not "auto", a count ≥ 1 or a list of device indices',
      fix:
        typeof devices === "string" && Number.isFinite(Number(devices))
          ? `Pass the number: devices: ${Number(devices)}`
          : 'Pass devices: "auto", 2 or [0, 1]',
    });
  checkOptions(where, opts.loops, ["steps", "layers"], {
    prefix: "loops",
    choices: { steps: ["unrolled", "scan"], layers: ["unrolled", "scan"] },
  });
  checkOptions(where, opts.lossScale, ["initScale", "growthInterval"], {
    prefix: "lossScale",
    numbers: ["initScale"],
    ints: ["growthInterval"],
    positive: ["initScale", "growthInterval"],
  });
  const callbacks = opts.callbacks;
  if (callbacks !== undefined && !(Array.isArray(callbacks) && callbacks.every(isObject)))
    throw new OptionError({
      where,
      option: "callbacks",
      value: callbacks,
      why: "is not a list of callback objects",
      fix: "Pass callbacks: [new ModelCheckpoint(…), …]",
    });
}

/** Throws an OptionError for the first wrong argument of fit (called first thing by Trainer.fit). */
export function checkFitArgs(args: unknown): void {
  const where = "fit";
  if (!isObject(args))
    throw new OptionError({
      where,
      option: "args",
      value: args,
      why: "is not an object",
      fix: "Call fit({ model, optimizer: { learningRate }, train })",
    });
  checkOptions(where, args, FIT_ARGS, { ints: ["labelCapacity"], positive: ["labelCapacity"], strings: ["tokenizerDir", "task"] });
  const model = args.model;
  // A language model has hidden states; a sequence classifier, class logits.
  const forward = isObject(model) && (typeof model.hidden === "function" || typeof model.logits === "function");
  if (!isObject(model) || typeof model.init !== "function" || !forward || !isObject(model.config))
    throw new OptionError({
      where,
      option: "model",
      value: model,
      why: "is not a model",
      fix: 'Pass a model, e.g. RobertaForMaskedLM.fromPreset("mlm-small", tokenizer) or createModel(config)',
    });
  if (args.params !== undefined && !isObject(args.params))
    throw new OptionError({
      where,
      option: "params",
      value: args.params,
      why: "is not a parameter tree",
      fix: "Pass the parameters model.init(key) or loadModel made, or leave params out for a fresh init",
    });
  if (!isObject(args.optimizer))
    throw new OptionError({
      where,
      option: "optimizer",
      value: args.optimizer,
      why: "must be the optimizer's settings",
      fix: "Pass optimizer: { learningRate: 1e-3 }",
    });
  checkOptions(where, args.optimizer, OPTIMIZER_SETTINGS, {
    prefix: "optimizer",
    numbers: ["learningRate", "weightDecay", "beta1", "beta2", "eps", "warmupFraction", "decayFraction"],
    ints: ["warmupSteps"],
    nonNegative: ["learningRate", "weightDecay", "warmupSteps", "warmupFraction"],
    positive: ["eps", "decayFraction"],
    fractions: ["decayFraction"],
    choices: { schedule: SCHEDULE_SHAPES },
  });
  checkScheduleSettings(args.optimizer, where);
  if (args.optimizer.learningRate === undefined)
    throw new OptionError({
      where,
      option: "optimizer.learningRate",
      value: undefined,
      why: "is required",
      fix: "Pass optimizer: { learningRate: 1e-3 }",
    });
  for (const role of ["train", "eval"] as const) {
    const data = args[role];
    if (data === undefined && role === "eval") continue;
    if (!(data instanceof TFRecordDataset || data instanceof ClassificationDataset))
      throw new OptionError({
        where,
        option: role,
        value: data,
        why: "is not a dataset",
        fix:
          typeof data === "string"
            ? `Open it first: ${role}: await openDataset({ files: ${JSON.stringify(data)}, maxLength, batchSize })`
            : "Pass a dataset from openDataset({ files, maxLength, batchSize }), " +
              "or labelled data from openClassificationDataset({ files, batchSize })",
      });
    // A classifier learns from labelled examples; a language model from token rows.
    const labelled = data instanceof ClassificationDataset;
    if (labelled !== (typeof model.logits === "function"))
      throw new OptionError({
        where,
        option: role,
        value: data.files[0] ?? data,
        why: labelled
          ? "holds labelled classification records, but the model is a language model, which trains on token shards"
          : "holds token shards, but the model is a sequence classifier, which trains on labelled examples",
        fix: labelled
          ? "Pass a sequence classifier (createSequenceClassifier, *ForSequenceClassification.fromPretrained), " +
            "or token shards from openDataset"
          : "Pass labelled data from openClassificationDataset({ files, batchSize }) (kiln data prepare --task classification)",
      });
    // Length-bucketed batches are padded up to a multiple of padToMultipleOf: the longest can pass maxLength.
    checkDataFitsModel(model as never, labelled ? { maxLength: data.paddedLengths.at(-1)!, files: data.files } : data, role);
  }
  if (args.classWeights !== undefined && typeof model.logits !== "function")
    throw new OptionError({
      where,
      option: "classWeights",
      value: args.classWeights,
      why: "weighs a classifier's classes, but the model is a language model",
      fix: "Leave classWeights out, or fine-tune a sequence classifier",
    });
  if (args.masking !== undefined)
    checkOptions(where, args.masking, MASKING, {
      prefix: "masking",
      ints: ["maskTokenId", "vocabSize"],
      nonNegative: ["maskTokenId"],
      numbers: ["mlmProbability", "evalMlmProbability", "maskFraction", "randomFraction"],
      // Rates outside these ranges would be clamped inside the traced masking, not refused.
      fractions: ["mlmProbability", "evalMlmProbability", "maskFraction", "randomFraction"],
      positive: ["vocabSize", "mlmProbability", "evalMlmProbability"],
    });
  checkMaskingShares(args.masking as MaskingSettings | undefined, where);
}

/** The selected tokens' shares: [MASK] and random ids (by default 0.8 and 0.1) together at most all of them. */
function checkMaskingShares(m: MaskingSettings | undefined, where: string): void {
  if (m === undefined) return;
  const share = (m.maskFraction ?? DEFAULT_MASK_FRACTION) + (m.randomFraction ?? DEFAULT_RANDOM_FRACTION);
  if (share <= 1) return;
  const option = m.randomFraction !== undefined ? "randomFraction" : "maskFraction";
  throw new OptionError({
    where,
    option: `masking.${option}`,
    value: m[option],
    why: `makes maskFraction + randomFraction ${Number(share.toFixed(6))}, more than all the selected tokens`,
    fix: "Make maskFraction + randomFraction at most 1 (the selected tokens left over stay as they are)",
  });
}

/**
 * Refuses a setting that only another task takes (a masked LM's masking probability or position start
 * given to a causal LM's run): each task's spec names its own settings and what they do.
 */
export function checkTaskSettings(task: TrainingTask, settings: Readonly<Record<string, unknown>>, where: string): void {
  for (const [option, value] of Object.entries(settings)) {
    if (value === undefined) continue;
    const owner = TASK_SPECS.find((t) => t.ownSettings?.[option] !== undefined);
    if (owner && owner.name !== task)
      throw new OptionError({ where, option, value, why: `${owner.ownSettings![option]}; task "${task}" has none`, fix: "Leave it out" });
  }
}

/** The schedule's settings together: decayFraction sizes warmup_stable_decay's decay; no other schedule has one. */
export function checkScheduleSettings(s: { schedule?: unknown; decayFraction?: unknown }, where: string): void {
  if (s.decayFraction !== undefined && s.schedule !== "warmup_stable_decay")
    throw new OptionError({
      where,
      option: "optimizer.decayFraction",
      value: s.decayFraction,
      why:
        'sizes the decay of optimizer.schedule "warmup_stable_decay", ' +
        `but optimizer.schedule is ${JSON.stringify(s.schedule ?? "linear")}`,
      fix: 'Set optimizer.schedule "warmup_stable_decay" as well, or leave optimizer.decayFraction out',
    });
}

/** A model's start: positionInit starts a new model's positions, which a pretrained model (initFrom) brings. */
export function checkModelStart(s: { positionInit?: unknown; initFrom?: unknown }, where: string): void {
  if (s.positionInit !== undefined && s.initFrom !== undefined)
    throw new OptionError({
      where,
      option: "positionInit",
      value: s.positionInit,
      why: "starts a model from scratch; initFrom loads its positions",
      fix: "Leave it out",
    });
}
