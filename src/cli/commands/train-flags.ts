// `kiln train`'s flags: one table (parsing, --help, checks), read by commands/train.ts.
import { flagTable } from "../flags.js";
import {
  ACCELERATORS,
  EXECUTOR_FLAG,
  SHARE_CHECK,
  PJRT_PLUGIN_FLAG,
  PRECISION_FLAG,
  TASKS,
  TRAIN_TASK_FLAG,
  VERBOSE_FLAG,
} from "../common-flags.js";
import { modelTypes, POSITION_INITS } from "../../models/index.js";
import { ownerOf, presetsByTask, taskChoices } from "../task-help.js";
import { modelTaskOf, TASK_SPECS } from "../../train/tasks/index.js";
import type { StrategyName } from "../../distribute/strategy.js";
import { OPTIMIZER_NAMES } from "../../optim/by-name.js";
import { SCHEDULE_SHAPES } from "../../optim/schedules.js";
import { DEFAULT_MLM_PROBABILITY } from "../../data/mlm/mask.js";

/** The tasks that train on labelled records (a classifier), each with its own usage line. */
const LABELLED = TASK_SPECS.filter((t) => t.labelledData);
/** The tasks that train language models from token shards (their presets). */
const LANGUAGE_MODELLING = TASK_SPECS.filter((t) => !t.labelledData);

const STRATEGIES: readonly StrategyName[] = ["auto", "one-device", "data-parallel"];

/** The families of every task's models, by task: "roberta/bert, or llama/gpt2". */
const FAMILIES = [...new Set(LANGUAGE_MODELLING.map(modelTaskOf))].map((t) => modelTypes(t).join("/")).join(", or ");

const MODEL = "Model and data:";
const TRAINING = "Training:";
const DEVICES = "Devices and precision:";
const OUTPUT = "Output:";

export const TRAIN_FLAGS = flagTable({
  command: "train",
  usage:
    `Usage: kiln train [--task ${TASKS.join("|")}] --tokenizer DIR --train-data PATH --output-dir DIR ` +
    `(--preset NAME | --model-config FILE | --init-from DIR) [flags]` +
    LABELLED.map(
      (t) =>
        `\n       kiln train --task ${t.name} --init-from DIR --tokenizer DIR --train-data SPLIT ` +
        `--output-dir DIR [--num-labels N] [--class-weights W,…] [flags]`,
    ).join(""),
  about: `Trains a language model, from scratch or from a pretrained one, on TFRecord shards written by
\`kiln data prepare\` (the same shards for both language-model tasks), or fine-tunes a classifier:
${taskChoices((t) => t.trainHelp)}`,
  flags: {
    task: { ...TRAIN_TASK_FLAG, group: MODEL },
    preset: {
      type: "string",
      value: "NAME",
      group: MODEL,
      help: `${presetsByTask("\n", " | ", LANGUAGE_MODELLING)}\n` + "(vocabulary and special ids from the tokenizer)",
    },
    "model-config": { type: "string", value: "FILE", group: MODEL, help: `a Hugging Face config.json instead of a preset (${FAMILIES})` },
    "init-from": {
      type: "string",
      value: "DIR",
      group: MODEL,
      help:
        "fine-tune a pretrained model: a directory from `kiln train` or transformers'\n" +
        "save_pretrained (config.json, model.safetensors); the optimizer starts fresh,\n" +
        "a missing masked-LM head is initialized; --tokenizer must be the model's own",
    },
    "position-init": {
      type: "enum",
      values: POSITION_INITS,
      group: MODEL,
      help:
        `${ownerOf("positionInit")} from scratch: normal (default, as transformers) | sinusoidal (the position table\n` +
        "starts from sinusoids at the initializer's scale) | local-attention (sinusoids, and the\n" +
        "first layer's heads start attending to the tokens 1, 2, … to either side); the\n" +
        "parameters and checkpoint are the same",
    },
    tokenizer: {
      type: "string",
      value: "DIR",
      required: true,
      option: "tokenizerDir",
      group: MODEL,
      help: "tokenizer directory (tokenizer.json)",
    },
    "train-data": {
      type: "list",
      value: "PATH",
      required: true,
      group: MODEL,
      help: "directory, glob or file of *.tfrecord shards, local or gs://",
    },
    "eval-data": { type: "list", value: "PATH", group: MODEL, help: "evaluation shards (optional)" },
    "num-labels": {
      type: "int",
      min: 1,
      group: MODEL,
      help: "sequence-classification: the classes (default and check: the data's prepare.json)",
    },
    "class-weights": {
      type: "string",
      value: "W0,W1,…",
      group: MODEL,
      help:
        "sequence-classification: one loss weight per class, in class id order (weighted\n" +
        "cross-entropy Σ w·nll / Σ w, as PyTorch's CrossEntropyLoss(weight=…))",
    },
    "max-length": {
      type: "int",
      min: 1,
      group: MODEL,
      help: "tokens per record; must match the shards (default: the data's prepare.json, or\nthe shards' first record)",
    },
    "per-replica-batch-size": { type: "int", min: 1, default: 8, group: TRAINING, help: "examples per step" },
    epochs: { type: "int", min: 1, default: 1, group: TRAINING, help: "passes over the training data" },
    "max-steps": { type: "int", min: 1, group: TRAINING, help: "stop after N optimizer steps (overrides --epochs)" },
    "max-time": {
      type: "string",
      value: "TIME",
      group: TRAINING,
      help:
        'a training time budget: seconds, or "90s", "5m", "1h30m", "DD:HH:MM:SS"; the schedule\n' +
        "follows the fraction of it spent and the run stops with a final eval and save (with\n" +
        "--max-steps or --epochs too, whichever ends first); the steps reached depend on the machine",
    },
    "learning-rate": { type: "number", default: 1e-4, group: TRAINING, help: "peak learning rate", check: atLeastZero },
    optimizer: {
      type: "enum",
      values: OPTIMIZER_NAMES,
      default: "adamw",
      group: TRAINING,
      help:
        "adamw (default) | adafactor (transformers' Adafactor at the scheduled rate: factored\n" +
        "second moments, no parameter scaling) | lion (optax's: sign updates; a 3-10x smaller\n" +
        "rate than AdamW's); --resume continues with the run's own",
    },
    "weight-decay": {
      type: "number",
      default: 1e-3,
      group: TRAINING,
      help: "decoupled weight decay, not on LayerNorm or biases",
      check: atLeastZero,
    },
    warmup: { type: "int", min: 0, group: TRAINING, help: "warmup steps (default: a twentieth of the total), then the decay" },
    "lr-scheduler-type": {
      type: "enum",
      values: SCHEDULE_SHAPES,
      default: "linear",
      group: TRAINING,
      option: "optimizer.schedule",
      help:
        "the learning rate after the warmup: linear (default: decay to 0) | cosine (half a cosine\n" +
        "to 0) | warmup_stable_decay (held at the peak, then linear decay over --decay-fraction)",
    },
    "decay-fraction": {
      type: "number",
      group: TRAINING,
      help: "warmup_stable_decay: the share of the run, at its end, that decays (default 0.2)",
      check: SHARE_CHECK,
      option: "optimizer.decayFraction",
    },
    "mlm-probability": {
      type: "number",
      group: TRAINING,
      help: `${ownerOf("masking.mlmProbability")}: share of tokens selected for prediction (default ${DEFAULT_MLM_PROBABILITY})`,
      check: SHARE_CHECK,
    },
    "eval-mlm-probability": {
      type: "number",
      group: TRAINING,
      help: `${ownerOf("masking.evalMlmProbability")}: share of tokens evaluation selects (default: --mlm-probability)`,
      check: SHARE_CHECK,
    },
    "shuffle-buffer-size": { type: "int", min: 1, default: 2 ** 18, group: TRAINING, help: "records in the shuffle buffer" },
    "gradient-accumulation": { type: "int", min: 1, default: 1, group: TRAINING, help: "micro-batches per optimizer step" },
    "steps-per-execution": {
      type: "int",
      min: 1,
      default: 1,
      group: TRAINING,
      help: "optimizer steps per compiled call, one host round trip each",
    },
    "clip-norm": {
      type: "number",
      group: TRAINING,
      help: "clip gradients to this global norm, > 0 (default: no clipping)",
      check: (n) => (n > 0 ? undefined : "must be > 0 (a negative norm would turn training into gradient ascent)"),
    },
    "on-nan": {
      type: "enum",
      values: ["stop", "skip"],
      default: "stop",
      option: "onNonFinite",
      group: TRAINING,
      help:
        "a step whose loss or gradients are NaN/Inf: stop the run (default; nothing from\n" +
        "the diverged state is saved) or skip that update (stopping after 10 in a row)",
    },
    seed: { type: "int", min: 0, default: 42, group: TRAINING, help: "seed of init, shuffling, masking and dropout" },
    accelerator: {
      type: "enum",
      values: ACCELERATORS,
      default: "auto",
      group: DEVICES,
      help: "cpu | gpu | tpu | auto (default auto: a GPU/TPU when a PJRT plugin is found, else the CPU)",
    },
    devices: { type: "int", min: 1, group: DEVICES, help: "replicas for data parallelism (default 1; on the CPU, N virtual devices)" },
    strategy: { type: "enum", values: STRATEGIES, default: "auto", group: DEVICES, help: "auto | one-device | data-parallel" },
    precision: {
      ...PRECISION_FLAG,
      values: [...PRECISION_FLAG.values, "auto"],
      group: DEVICES,
      help:
        "32 | bf16-mixed | bf16-true | 16-mixed | auto (default 32; bf16/f16 are emulated on\n" +
        "ONNX Runtime; auto: 32 or bf16-mixed, whichever measures faster on this CPU)",
    },
    executor: {
      ...EXECUTOR_FLAG,
      group: DEVICES,
      help:
        "ort | xla: who runs the CPU (ONNX Runtime, or XLA's CPU plugin with --devices N devices;\n" +
        "default: the faster here, measured at the first run of a model shape and cached:\n" +
        "`kiln devices --probe`); GPUs and TPUs always run on XLA",
    },
    "pjrt-plugin": {
      ...PJRT_PLUGIN_FLAG,
      group: DEVICES,
      help: "a PJRT plugin (.so) for --accelerator gpu/tpu, or XLA's CPU plugin for --executor xla\n(or env KILN_PJRT_PLUGIN)",
    },
    verbose: { ...VERBOSE_FLAG, group: DEVICES },
    "output-dir": {
      type: "string",
      value: "DIR",
      required: true,
      group: OUTPUT,
      help:
        "checkpoints, final model, metrics.jsonl, runs/ (TensorBoard), loss_curve.html;\n" +
        "a gs://bucket/prefix trains in a local staging directory and pushes as --push-to does",
    },
    "push-to": {
      type: "string",
      value: "gs://BUCKET/PATH",
      group: OUTPUT,
      help:
        "upload each checkpoint there in the background (skipped while an upload runs)\n" +
        "and the final model and last checkpoint at the end, before the command exits",
    },
    "eval-every": { type: "int", min: 0, group: OUTPUT, help: "evaluate every N steps (default: each epoch and at the end)" },
    evaluations: {
      type: "int",
      min: 1,
      group: OUTPUT,
      help: "evaluate N times, spread over the run (over --max-time's budget, or the steps), the last at the end",
    },
    "early-stopping-patience": {
      type: "int",
      min: 1,
      group: OUTPUT,
      help:
        "stop when eval_loss has not improved for N evaluations in a row (needs\n" +
        "--eval-data; the model is saved as at the end of a full run)",
    },
    "early-stopping-min-delta": {
      type: "number",
      group: OUTPUT,
      help: "the least decrease of eval_loss that counts as an improvement (default 0)",
      check: atLeastZero,
    },
    "log-lr": { type: "bool", group: OUTPUT, help: 'log the learning rate ("lr") every --log-every steps (metrics.jsonl, TensorBoard)' },
    "log-every": { type: "int", min: 1, default: 10, group: OUTPUT, help: "log metrics every N steps" },
    "checkpoint-every": { type: "int", min: 0, group: OUTPUT, help: "checkpoint every N steps (default: at the end)" },
    "keep-checkpoints": { type: "int", min: 1, default: 3, group: OUTPUT, help: "checkpoints to keep" },
    resume: {
      type: "bool",
      group: OUTPUT,
      help: "continue from the newest checkpoint in --output-dir, past damaged ones (for gs://,\ndownloaded first)",
    },
    overwrite: {
      type: "bool",
      group: OUTPUT,
      help:
        "replace the run in a non-empty --output-dir (removes its model, checkpoints\n" +
        "and logs); without it, or --resume, a non-empty --output-dir is refused",
    },
    "skip-bad-records": {
      type: "bool",
      group: OUTPUT,
      help:
        "skip records whose framing or checksums are damaged (counted, and listed\n" +
        "by file at the end) instead of stopping at the first one",
    },
    "preemption-signal": {
      type: "string",
      group: OUTPUT,
      value: "NAME",
      help:
        "one more signal (USR1, …) that stops the run as SIGTERM and SIGINT do: the step in flight finishes, " +
        "a checkpoint is written (and pushed), and the command exits 75 with the command that continues it",
    },
    quiet: { type: "bool", group: OUTPUT, help: "no progress bar" },
  },
});

/** The check of a flag that must not be negative. */
function atLeastZero(x: number): string | undefined {
  return x >= 0 ? undefined : "must be ≥ 0";
}
