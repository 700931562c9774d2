// `kiln train`: masked-LM (the default) or causal-LM (--task causal-lm) training from the same TFRecord
// shards, with the reference pipeline's flags.
import { existsSync } from "node:fs";
import { join } from "node:path";
import * as k from "../../core/index.js";
import { UsageError } from "../args.js";
import { flagTable, readFlags } from "../flags.js";
import { ACCELERATORS, deviceNotice, EXECUTOR_FLAG, PJRT_PLUGIN_FLAG, PRECISION_FLAG, TASK_FLAG, VERBOSE_FLAG } from "../common-flags.js";
import { loadTokenizer } from "../../text/index.js";
import { openDataset, type TFRecordDataset } from "../../data/pipeline/dataset.js";
import { checkDataTokenizer } from "../../data/prepare/manifest.js";
import { createModel, loadModel, modelTypes, presetNames, POSITION_INITS } from "../../models/index.js";
import { Trainer } from "../../train/trainer.js";
import { taskSpec } from "../../train/tasks/index.js";
import { EarlyStopping, LearningRateMonitor, ModelCheckpoint } from "../../train/callbacks.js";
import { listCheckpoints } from "../../train/checkpoint.js";
import { dataRecordLength } from "../../train/data-probe.js";
import { prepareOutputDir } from "../../train/output-dir.js";
import type { Command } from "./types.js";
import { launchedAcceleratorPlace, selectDevices } from "../../distribute/devices.js";
import { makeStrategy, type StrategyName } from "../../distribute/strategy.js";
import { joinAcceleratorGroup, joinProcessGroup, rankPrefix, type ProcessGroup } from "../../distribute/multi-process.js";
import { StoreClient } from "../../launch/store-client.js";
import { OPTIMIZER_NAMES } from "../../optim/by-name.js";
import { trainOutputs } from "../train-outputs.js";
import { isGcsPath } from "../../data/storage/index.js";
import { localInputDir, localInputFile, refuseGcs } from "../gcs-paths.js";
import { checkSameOptimizer, checkSameTokenizer, trainingModelConfig } from "../../train/model-source.js";

const STRATEGIES: readonly StrategyName[] = ["auto", "one-device", "data-parallel"];

const FAMILIES = `${modelTypes("mlm").join("/")}, or ${modelTypes("causal-lm").join("/")}`;

const MODEL = "Model and data:";
const TRAINING = "Training:";
const DEVICES = "Devices and precision:";
const OUTPUT = "Output:";

const FLAGS = flagTable({
  command: "train",
  usage:
    `Usage: kiln train [--task mlm|causal-lm] --tokenizer DIR --train-data PATH --output-dir DIR ` +
    `(--preset NAME | --model-config FILE | --init-from DIR) [flags]`,
  about: `Trains a language model, from scratch or from a pretrained one, on TFRecord shards written by
\`kiln data prepare\` (the same shards for both tasks):
  --task mlm        (default) a masked LM (RoBERTa/BERT). Masking (15% of tokens: 80% [MASK], 10% random,
                    10% kept) runs inside the compiled training step and is redrawn every epoch.
  --task causal-lm  a causal LM (Llama/GPT-2): next-token cross-entropy, the shift done inside the compiled
                    step, padding never a target; evaluation logs eval_perplexity (exp of eval_loss).`,
  flags: {
    task: { ...TASK_FLAG, group: MODEL },
    preset: {
      type: "string",
      value: "NAME",
      group: MODEL,
      help:
        `mlm: ${presetNames("mlm").join(" | ")}\ncausal-lm: ${presetNames("causal-lm").join(" | ")}\n` +
        "(vocabulary and special ids from the tokenizer)",
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
      default: "normal",
      group: MODEL,
      help:
        "mlm from scratch: normal (default, as transformers) | sinusoidal (the position table\n" +
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
    "max-length": {
      type: "int",
      min: 1,
      group: MODEL,
      help: "tokens per record; must match the shards (default: the data's prepare.json, or\nthe shards' first record)",
    },
    "per-replica-batch-size": { type: "int", min: 1, default: 8, group: TRAINING, help: "examples per step" },
    epochs: { type: "int", min: 1, default: 1, group: TRAINING, help: "passes over the training data" },
    "max-steps": { type: "int", min: 1, group: TRAINING, help: "stop after N optimizer steps (overrides --epochs)" },
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
    warmup: { type: "int", min: 0, group: TRAINING, help: "warmup steps (default: a twentieth of the total), then linear decay to 0" },
    "mlm-probability": {
      type: "number",
      default: 0.15,
      group: TRAINING,
      help: "mlm: share of tokens selected for prediction",
      check: (p) => (p > 0 && p < 1 ? undefined : "must be in (0, 1)"),
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
      group: DEVICES,
      help: "32 | bf16-mixed | bf16-true | 16-mixed (default 32; bf16/f16 are emulated on the CPU)",
    },
    executor: {
      ...EXECUTOR_FLAG,
      group: DEVICES,
      help:
        "ort | xla: who runs the CPU (default ort, ONNX Runtime; xla: XLA's CPU plugin with\n" +
        "--devices N devices); GPUs and TPUs always run on XLA",
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
    quiet: { type: "bool", group: OUTPUT, help: "no progress bar" },
  },
});

/** The check of a flag that must not be negative. */
function atLeastZero(x: number): string | undefined {
  return x >= 0 ? undefined : "must be ≥ 0";
}

async function runTrain(argv: string[]): Promise<void> {
  const flags = readFlags(FLAGS, argv);
  if (!flags) return;
  const { values: v, given } = flags;
  if (v.resume && v.overwrite)
    throw new UsageError("kiln train: --resume continues the run in --output-dir and --overwrite replaces it: give one");
  const earlyStopping = earlyStoppingFlags(v, given.has("early-stopping-min-delta"));
  if ([v.preset, v["model-config"], v["init-from"]].filter((x) => x !== undefined).length !== 1)
    throw new UsageError("kiln train: give exactly one of --preset and --model-config, or --init-from alone");
  const task = v.task;
  if (task === "causal-lm" && given.has("mlm-probability"))
    throw new UsageError(
      "kiln train: --mlm-probability sets the masking of a masked LM; --task causal-lm predicts every next token " +
        "and masks nothing: drop --mlm-probability",
    );
  if (given.has("position-init") && task !== "mlm")
    throw new UsageError("kiln train: --position-init starts a masked LM's position table; --task causal-lm has none");
  if (given.has("position-init") && v["init-from"] !== undefined)
    throw new UsageError("kiln train: --position-init starts a model from scratch; --init-from loads its positions");
  const batch = v["per-replica-batch-size"];
  const accum = v["gradient-accumulation"];
  if (batch % accum !== 0) throw new UsageError(`--per-replica-batch-size ${batch} must be a multiple of --gradient-accumulation ${accum}`);
  // Outputs are checked (and gs:// probed) before any work; gs:// inputs read as local files are downloaded.
  refuseGcs("pjrt-plugin", v["pjrt-plugin"], "a PJRT plugin");
  if (v.overwrite && isGcsPath(v["output-dir"]))
    throw new UsageError(
      `kiln train: --overwrite works on a local --output-dir only; ` +
        `empty ${v["output-dir"]} first (gsutil -m rm -r ${v["output-dir"]}) or give another prefix`,
    );
  const outputs = await trainOutputs(v["output-dir"], v["push-to"], v.resume);
  // A finished run in --output-dir is refused now, not after the data checks and the compile.
  if (!v.overwrite && !isGcsPath(v["output-dir"])) await prepareOutputDir(v["output-dir"], { resume: v.resume, overwrite: false });
  const tokenizerDir = await localInputDir("tokenizer", v.tokenizer);
  const initFrom = v["init-from"] !== undefined ? await localInputDir("init-from", v["init-from"]) : undefined;
  const modelConfig = v["model-config"] !== undefined ? await localInputFile("model-config", v["model-config"]) : undefined;

  // Everything is checked before any compile: tokenizer, shards, model/shard/tokenizer agreement.
  if (!existsSync(join(tokenizerDir, "tokenizer.json")))
    throw new UsageError(`--tokenizer ${tokenizerDir}: no tokenizer.json there (train one with \`kiln tokenizer train\`)`);
  const tokenizer = await loadTokenizer(tokenizerDir);
  // A resumed run continues with the tokenizer its checkpoint was trained with.
  const resumeFrom = v.resume ? (await listCheckpoints(outputs.localDir)).at(-1) : undefined;
  if (resumeFrom) await checkSameTokenizer(resumeFrom.path, tokenizerDir, tokenizer);
  if (resumeFrom) await checkSameOptimizer(resumeFrom.path, v.optimizer);
  const maxLength = await dataRecordLength(v["train-data"], v["max-length"]);
  const config = await trainingModelConfig(
    task,
    {
      ...(v.preset !== undefined ? { preset: v.preset } : {}),
      ...(modelConfig !== undefined ? { modelConfig } : {}),
      ...(initFrom !== undefined ? { initFrom } : {}),
    },
    tokenizer,
    tokenizerDir,
    maxLength,
  );

  // Under kiln launch on GPUs/TPUs (--accelerator gpu/tpu, or auto with a CUDA/TPU plugin found), every
  // process is one of the XLA client's processes (its devices all of this process's, unless --devices says otherwise).
  const pjrtPlugin = v["pjrt-plugin"] !== undefined ? { pjrtPlugin: v["pjrt-plugin"] } : {};
  const accelPlace = launchedAcceleratorPlace({ accelerator: v.accelerator, ...pjrtPlugin })?.place;
  const devices = selectDevices({
    accelerator: v.accelerator,
    devices: v.devices ?? (accelPlace ? "auto" : 1),
    ...(v.executor ? { executor: v.executor } : {}),
    ...pjrtPlugin,
    notice: deviceNotice(given.has("accelerator"), v.verbose),
  });
  // What the command computes without naming a device (shapes, keys) runs where it trains, as in the
  // quickstart: a run on XLA never loads ONNX Runtime.
  k.setDefaultDevice(devices[0]!);
  // Under mpiexec/mpirun every process runs this command: --devices replicas each, the global batch over all of them.
  const store = accelPlace ? await StoreClient.connect(accelPlace.coordinator) : undefined;
  const group: ProcessGroup | undefined =
    devices[0]!.platform === "cpu" ? joinProcessGroup() : accelPlace ? joinAcceleratorGroup(accelPlace, store!) : undefined;
  const replicas = devices.length * (group?.size ?? 1);
  const main = (group?.rank ?? 0) === 0;
  const common = { maxLength, batchSize: batch * replicas, ignoreErrors: v["skip-bad-records"] };
  const train = await openDataset({
    files: v["train-data"],
    ...common,
    shuffle: true,
    seed: v.seed,
    epochs: Infinity,
    shuffleBuffer: v["shuffle-buffer-size"],
  });
  const evalData = v["eval-data"] ? await openDataset({ files: v["eval-data"], ...common, shuffle: false, epochs: 1 }) : undefined;
  // Before anything compiles: the shards were made with this tokenizer, and every one of them reads
  // through (framing, checksums, the count in its name), so that damage stops the run now, not hours in.
  for (const data of [train, evalData]) if (data) await checkDataTokenizer(data.files, tokenizerDir);
  const checked = await checkInputs(train, evalData, rankPrefix(group));
  const maxSteps = v["max-steps"] ?? v.epochs * train.batchesPerEpoch;
  const checkpointEvery = v["checkpoint-every"] ?? 0;

  const trainer = new Trainer({
    outputDir: outputs.localDir,
    maxSteps,
    epochs: v.epochs,
    seed: v.seed,
    gradientAccumulation: accum,
    strategy: makeStrategy(v.strategy, devices),
    ...(store ? { coordinationStore: store } : {}),
    precision: v.precision,
    stepsPerExecution: v["steps-per-execution"],
    evalEvery: v["eval-every"] ?? 0,
    logEvery: v["log-every"],
    keepCheckpoints: v["keep-checkpoints"],
    resume: v.resume,
    overwrite: v.overwrite,
    onNonFinite: v["on-nan"],
    optimizer: v.optimizer,
    progress: !v.quiet,
    callbacks: [
      ...(checkpointEvery > 0 ? [new ModelCheckpoint({ everySteps: checkpointEvery })] : []),
      ...(outputs.push ? [outputs.push] : []),
      ...(earlyStopping ? [earlyStopping] : []),
      ...(v["log-lr"] ? [new LearningRateMonitor(v["log-every"])] : []),
    ],
    ...(v["clip-norm"] !== undefined ? { clipNorm: v["clip-norm"] } : {}),
  });
  const model = createModel(config, { positionInit: v["position-init"] });
  const init = initFrom ? await loadModel(initFrom, { task, missingHead: "init", seed: v.seed, device: devices[0]! }) : undefined;
  for (const notice of main ? (init?.notices ?? []) : []) console.error(`kiln train: ${notice}`);
  const params = k
    .leaves<k.Array>(k.evalShape((key: k.Array) => model.init(key), k.randomKey(0)))
    .reduce((n, a) => n + a.shape.reduce((x, y) => x * y, 1), 0);
  if (main)
    console.error(
      `kiln train: ${config.model_type} ${(params / 1e6).toFixed(2)}M parameters, ` +
        `${checked.trainRecords} training records of ${maxLength} tokens, ` +
        `${maxSteps} steps of ${replicas} × ${batch} on ${devices.map((d) => d.id).join(", ")}` +
        (group ? ` in each of ${group.size} processes ` : " ") +
        `(${trainer.strategy.name}, precision ${v.precision})`,
    );
  const result = await trainer.fit({
    model,
    ...(init ? { params: init.params } : {}),
    tokenizerDir,
    train,
    ...(evalData ? { eval: evalData } : {}),
    optimizer: {
      learningRate: v["learning-rate"],
      weightDecay: v["weight-decay"],
      ...(v.warmup !== undefined ? { warmupSteps: v.warmup } : {}),
    },
    ...(taskSpec(task).usesMasking
      ? {
          masking: {
            maskTokenId: tokenizer.maskId,
            vocabSize: tokenizer.vocabSize,
            specialIds: [...tokenizer.specialIds],
            mlmProbability: v["mlm-probability"],
          },
        }
      : {}),
  });
  for (const [name, data] of [
    ["training", train],
    ["evaluation", evalData],
  ] as const) {
    const summary = data?.skipped.summary();
    if (summary) console.error(`${rankPrefix(group)}kiln train: ${name} data: ${summary}`);
  }
  if (!main) return;
  const last = result.evalHistory.at(-1);
  console.log(
    JSON.stringify({
      output_dir: v["output-dir"],
      steps: result.globalStep,
      train_loss: result.history.at(-1)?.loss,
      task,
      // The task's evaluation metrics as its spec logs them (eval_loss, eval_perplexity, eval_accuracy), but the count.
      ...Object.fromEntries(Object.entries(last ?? {}).filter(([key]) => key.startsWith("eval_") && key !== "eval_tokens")),
      tokens_per_s: Math.round(result.tokensPerSecond),
      compile_s: Number(result.compileSeconds.toFixed(2)),
    }),
  );
}

/** --early-stopping-patience/--early-stopping-min-delta as an EarlyStopping callback on eval_loss. */
function earlyStoppingFlags(
  v: { "early-stopping-patience": number | undefined; "early-stopping-min-delta": number | undefined; "eval-data": string[] | undefined },
  minDeltaGiven: boolean,
): EarlyStopping | undefined {
  const patience = v["early-stopping-patience"];
  if (patience === undefined) {
    if (minDeltaGiven) throw new UsageError("kiln train: --early-stopping-min-delta needs --early-stopping-patience N");
    return undefined;
  }
  if (!v["eval-data"]?.length)
    throw new UsageError(
      "kiln train: --early-stopping-patience watches eval_loss: give --eval-data (and --eval-every N to evaluate during an epoch)",
    );
  return new EarlyStopping({ monitor: "eval_loss", mode: "min", patience, minDelta: v["early-stopping-min-delta"] ?? 0 });
}

export const trainCommand: Command = {
  name: "train",
  summary: "train a masked (default) or causal (--task causal-lm) language model on TFRecord shards",
  run: runTrain,
};

/** Reads every input shard through once and says what it found (`checked N shards (X MB) in S s`). */
async function checkInputs(
  train: TFRecordDataset<unknown>,
  evalData: TFRecordDataset<unknown> | undefined,
  prefix: string,
): Promise<{ trainRecords: number }> {
  const t = await train.checkShards();
  const e = evalData ? await evalData.checkShards() : undefined;
  const files = t.files + (e?.files ?? 0);
  const mb = (t.bytes + (e?.bytes ?? 0)) / 1e6;
  const skipped = t.skipped + (e?.skipped ?? 0);
  console.error(
    `${prefix}kiln train: checked ${files} shards (${mb.toFixed(1)} MB) in ${(t.seconds + (e?.seconds ?? 0)).toFixed(2)} s` +
      (skipped ? `, ${skipped} bad records to skip` : ""),
  );
  return { trainRecords: t.records };
}
