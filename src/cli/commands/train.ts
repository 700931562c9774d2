// `kiln train`: masked-LM (the default) or causal-LM (--task causal-lm) training from the same TFRecord
// shards, with the reference pipeline's flags.
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import * as k from "../../core/index.js";
import { parseFlags, intFlag, numberFlag, UsageError, executorFlag, noPositionals } from "../args.js";
import { loadTokenizer } from "../../text/index.js";
import { openDataset, type TFRecordDataset } from "../../data/pipeline/dataset.js";
import { checkDataTokenizer } from "../../data/prepare/manifest.js";
import { createModel, loadModel, modelTypes, presetNames, POSITION_INITS, type PositionInit } from "../../models/index.js";
import { Trainer } from "../../train/trainer.js";
import { taskSpec } from "../../train/tasks/index.js";
import { EarlyStopping, LearningRateMonitor, ModelCheckpoint } from "../../train/callbacks.js";
import { listCheckpoints } from "../../train/checkpoint.js";
import { probeRecordLength } from "../../train/data-probe.js";
import { OutputDirInUseError, prepareOutputDir } from "../../train/output-dir.js";
import type { Command } from "./types.js";
import type { TrainingTask } from "../../train/objectives/objective.js";
import { launchedAcceleratorPlace, selectDevices, type Accelerator } from "../../distribute/devices.js";
import { makeStrategy, type StrategyName } from "../../distribute/strategy.js";
import { joinAcceleratorGroup, joinProcessGroup, rankPrefix, type ProcessGroup } from "../../distribute/multi-process.js";
import { StoreClient } from "../../launch/store-client.js";
import { PRECISIONS, type PrecisionName } from "../../optim/precision.js";
import { OPTIMIZER_NAMES, type OptimizerName } from "../../optim/by-name.js";
import { trainOutputs } from "../train-outputs.js";
import { isGcsPath } from "../../data/storage/index.js";
import { localInputDir, localInputFile, refuseGcs } from "../gcs-paths.js";
import { checkSameTokenizer, taskFlag, trainModelConfig } from "../train-model.js";
import { preemptionSignalFlag, reportStopped, stopOnSignals } from "../stop-on-signal.js";

const FAMILIES = `${modelTypes("mlm").join("/")}, or ${modelTypes("causal-lm").join("/")}`;

const HELP =
  `Usage: kiln train [--task mlm|causal-lm] --tokenizer DIR --train-data PATH --output-dir DIR ` +
  `(--preset NAME | --model-config FILE | --init-from DIR) [flags]

Trains a language model, from scratch or from a pretrained one, on TFRecord shards written by
\`kiln data prepare\` (the same shards for both tasks):
  --task mlm        (default) a masked LM (RoBERTa/BERT). Masking (15% of tokens: 80% [MASK], 10% random,
                    10% kept) runs inside the compiled training step and is redrawn every epoch.
  --task causal-lm  a causal LM (Llama/GPT-2): next-token cross-entropy, the shift done inside the compiled
                    step, padding never a target; evaluation logs eval_perplexity (exp of eval_loss).

Model and data:
  --task NAME                 mlm | causal-lm (default mlm)
  --preset NAME               mlm: ${presetNames("mlm").join(" | ")}
                              causal-lm: ${presetNames("causal-lm").join(" | ")}
                              (vocabulary and special ids from the tokenizer)
  --model-config FILE         a Hugging Face config.json instead of a preset (${FAMILIES})
  --init-from DIR             fine-tune a pretrained model: a directory from \`kiln train\` or transformers'
                              save_pretrained (config.json, model.safetensors); the optimizer starts fresh,
                              a missing masked-LM head is initialized; --tokenizer must be the model's own
  --position-init NAME        mlm from scratch: normal (default, as transformers) | sinusoidal (the position table
                              starts from sinusoids at the initializer's scale) | local-attention (sinusoids, and the
                              first layer's heads start attending to the tokens 1, 2, … to either side); the
                              parameters and checkpoint are the same
  --tokenizer DIR             tokenizer directory (tokenizer.json) (required)
  --train-data PATH           directory, glob or file of *.tfrecord shards, local or gs:// (required)
  --eval-data PATH            evaluation shards (optional)
  --max-length N              tokens per record; must match the shards (default: read from the shards)
Training:
  --per-replica-batch-size N  examples per step (default 8)
  --epochs N                  passes over the training data (default 1)
  --max-steps N               stop after N optimizer steps (overrides --epochs)
  --learning-rate X           peak learning rate (default 1e-4)
  --optimizer NAME            adamw (default) | adafactor (transformers' Adafactor at the scheduled rate: factored
                              second moments, no parameter scaling) | lion (optax's: sign updates; a 3-10x smaller
                              rate than AdamW's); --resume continues with the run's own
  --weight-decay X            decoupled weight decay, not on LayerNorm or biases (default 1e-3)
  --warmup N                  warmup steps (default: a twentieth of the total), then linear decay to 0
  --mlm-probability X         mlm: share of tokens selected for prediction (default 0.15)
  --shuffle-buffer-size N     records in the shuffle buffer (default 262144)
  --gradient-accumulation N   micro-batches per optimizer step (default 1)
  --steps-per-execution N     optimizer steps per compiled call, one host round trip each (default 1)
  --clip-norm X               clip gradients to this global norm, > 0 (default: no clipping)
  --on-nan stop|skip          a step whose loss or gradients are NaN/Inf: stop the run (default; nothing from
                              the diverged state is saved) or skip that update (stopping after 10 in a row)
  --seed N                    seed of init, shuffling, masking and dropout (default 42)
Devices and precision:
  --accelerator NAME          cpu | gpu | tpu | auto (default auto: a GPU/TPU when a PJRT plugin is found, else the CPU)
  --devices N                 replicas for data parallelism (default 1; on the CPU, N virtual devices)
  --strategy NAME             auto | one-device | data-parallel (default auto)
  --precision NAME            32 | bf16-mixed | bf16-true | 16-mixed (default 32; bf16/f16 are emulated on the CPU)
  --executor NAME             ort | xla: who runs the CPU (default ort, ONNX Runtime; xla: XLA's CPU plugin with
                              --devices N devices); GPUs and TPUs always run on XLA
  --pjrt-plugin PATH          a PJRT plugin (.so) for --accelerator gpu/tpu, or XLA's CPU plugin for --executor xla
                              (or env KILN_PJRT_PLUGIN)
Output:
  --output-dir DIR            checkpoints, final model, metrics.jsonl, runs/ (TensorBoard), loss_curve.html (required);
                              a gs://bucket/prefix trains in a local staging directory and pushes as --push-to does
  --push-to gs://BUCKET/PATH  upload each checkpoint there in the background (skipped while an upload runs)
                              and the final model and last checkpoint at the end, before the command exits
  --eval-every N              evaluate every N steps (default: each epoch and at the end)
  --early-stopping-patience N stop when eval_loss has not improved for N evaluations in a row (needs
                              --eval-data; the model is saved as at the end of a full run)
  --early-stopping-min-delta X  the least decrease of eval_loss that counts as an improvement (default 0)
  --log-lr                    log the learning rate ("lr") every --log-every steps (metrics.jsonl, TensorBoard)
  --log-every N               log metrics every N steps (default 10)
  --checkpoint-every N        checkpoint every N steps (default: at the end)
  --keep-checkpoints N        checkpoints to keep (default 3)
  --resume                    continue from the newest checkpoint in --output-dir, past damaged ones (for gs://,
                              downloaded first)
  --overwrite                 replace the run in a non-empty --output-dir (removes its model, checkpoints
                              and logs); without it, or --resume, a non-empty --output-dir is refused
  --skip-bad-records          skip records whose framing or checksums are damaged (counted, and listed
                              by file at the end) instead of stopping at the first one
  --preemption-signal NAME    one more signal (USR1, …) that stops the run as SIGTERM and SIGINT do: the step in
                              flight finishes, a checkpoint is written (and pushed), and the command exits 75
                              with the command that continues it
  --quiet                     no progress bar`;

const FLAGS = {
  task: { type: "string" },
  preset: { type: "string" },
  "model-config": { type: "string" },
  "init-from": { type: "string" },
  "position-init": { type: "string" },
  tokenizer: { type: "string" },
  "train-data": { type: "string", multiple: true },
  "eval-data": { type: "string", multiple: true },
  "max-length": { type: "string" },
  "per-replica-batch-size": { type: "string" },
  epochs: { type: "string" },
  "max-steps": { type: "string" },
  "learning-rate": { type: "string" },
  optimizer: { type: "string" },
  "weight-decay": { type: "string" },
  warmup: { type: "string" },
  "mlm-probability": { type: "string" },
  "shuffle-buffer-size": { type: "string" },
  "gradient-accumulation": { type: "string" },
  "clip-norm": { type: "string" },
  "steps-per-execution": { type: "string" },
  seed: { type: "string" },
  "output-dir": { type: "string" },
  "push-to": { type: "string" },
  "eval-every": { type: "string" },
  "early-stopping-patience": { type: "string" },
  "early-stopping-min-delta": { type: "string" },
  "log-lr": { type: "boolean" },
  "log-every": { type: "string" },
  "checkpoint-every": { type: "string" },
  "keep-checkpoints": { type: "string" },
  resume: { type: "boolean" },
  overwrite: { type: "boolean" },
  "on-nan": { type: "string" },
  quiet: { type: "boolean" },
  "skip-bad-records": { type: "boolean" },
  help: { type: "boolean", short: "h" },
  accelerator: { type: "string" },
  devices: { type: "string" },
  strategy: { type: "string" },
  precision: { type: "string" },
  "pjrt-plugin": { type: "string" },
  executor: { type: "string" },
  "preemption-signal": { type: "string" },
} as const;

function required(value: string | string[] | undefined, flag: string): void {
  if (value === undefined || (Array.isArray(value) && value.length === 0))
    throw new UsageError(`kiln train: --${flag} is required\n\n${HELP}`);
}

async function runTrain(argv: string[]): Promise<void> {
  const { values: v, positionals } = parseFlags("train", argv, FLAGS);
  if (v.help) return console.log(HELP);
  noPositionals("train", positionals);
  required(v.tokenizer, "tokenizer");
  required(v["train-data"], "train-data");
  required(v["output-dir"], "output-dir");
  if (v.resume && v.overwrite)
    throw new UsageError("kiln train: --resume continues the run in --output-dir and --overwrite replaces it: give one");
  const learningRate = numberFlag("learning-rate", v["learning-rate"], 1e-4);
  if (learningRate < 0) throw new UsageError(`--learning-rate must be ≥ 0, got ${v["learning-rate"]}`);
  const optimizer = (v.optimizer ?? "adamw") as OptimizerName;
  if (!OPTIMIZER_NAMES.includes(optimizer))
    throw new UsageError(`--optimizer must be one of ${OPTIMIZER_NAMES.join(", ")}, got "${v.optimizer}"`);
  const weightDecay = numberFlag("weight-decay", v["weight-decay"], 1e-3);
  if (weightDecay < 0) throw new UsageError(`--weight-decay must be ≥ 0, got ${v["weight-decay"]}`);
  const clipNorm = v["clip-norm"] !== undefined ? numberFlag("clip-norm", v["clip-norm"], 1) : undefined;
  if (clipNorm !== undefined && !(clipNorm > 0))
    throw new UsageError(`--clip-norm must be > 0 (a negative norm would turn training into gradient ascent), got ${v["clip-norm"]}`);
  const onNan = v["on-nan"] ?? "stop";
  if (onNan !== "stop" && onNan !== "skip") throw new UsageError(`--on-nan must be stop or skip, got "${onNan}"`);
  const earlyStopping = earlyStoppingFlags(v);
  const preemptionSignal = preemptionSignalFlag(v["preemption-signal"]);
  if ([v.preset, v["model-config"], v["init-from"]].filter((x) => x !== undefined).length !== 1)
    throw new UsageError("kiln train: give exactly one of --preset and --model-config, or --init-from alone");
  const task = taskFlag(v.task);
  if (task === "causal-lm" && v["mlm-probability"] !== undefined)
    throw new UsageError(
      "kiln train: --mlm-probability sets the masking of a masked LM; --task causal-lm predicts every next token " +
        "and masks nothing: drop --mlm-probability",
    );
  const positionInit = positionInitFlag(v["position-init"], task, v["init-from"] !== undefined);
  const seed = intFlag("seed", v.seed, 42, 0);
  const batch = intFlag("per-replica-batch-size", v["per-replica-batch-size"], 8, 1);
  const accum = intFlag("gradient-accumulation", v["gradient-accumulation"], 1, 1);
  if (batch % accum !== 0) throw new UsageError(`--per-replica-batch-size ${batch} must be a multiple of --gradient-accumulation ${accum}`);
  const mlmProbability = numberFlag("mlm-probability", v["mlm-probability"], 0.15);
  if (!(mlmProbability > 0 && mlmProbability < 1)) throw new UsageError(`--mlm-probability must be in (0, 1), got ${mlmProbability}`);
  // Outputs are checked (and gs:// probed) before any work; gs:// inputs read as local files are downloaded.
  refuseGcs("pjrt-plugin", v["pjrt-plugin"], "a PJRT plugin");
  if (v.overwrite && isGcsPath(v["output-dir"]!))
    throw new UsageError(
      `kiln train: --overwrite works on a local --output-dir only; ` +
        `empty ${v["output-dir"]} first (gsutil -m rm -r ${v["output-dir"]}) or give another prefix`,
    );
  const outputs = await trainOutputs(v["output-dir"]!, v["push-to"], Boolean(v.resume));
  // A finished run in --output-dir is refused now, not after the data checks and the compile.
  if (!v.overwrite && !isGcsPath(v["output-dir"]!)) {
    try {
      await prepareOutputDir(v["output-dir"]!, { resume: Boolean(v.resume), overwrite: false });
    } catch (e) {
      if (e instanceof OutputDirInUseError) throw new UsageError(`kiln train: ${e.message}`);
      throw e;
    }
  }
  v.tokenizer = await localInputDir("tokenizer", v.tokenizer!);
  if (v["init-from"]) v["init-from"] = await localInputDir("init-from", v["init-from"]);
  if (v["model-config"]) v["model-config"] = await localInputFile("model-config", v["model-config"]);

  // Everything is checked before any compile: tokenizer, shards, model/shard/tokenizer agreement.
  if (!existsSync(join(v.tokenizer!, "tokenizer.json")))
    throw new UsageError(`--tokenizer ${v.tokenizer}: no tokenizer.json there (train one with \`kiln tokenizer train\`)`);
  const tokenizer = await loadTokenizer(v.tokenizer!);
  // A resumed run continues with the tokenizer its checkpoint was trained with.
  const resumeFrom = v.resume ? (await listCheckpoints(outputs.localDir)).at(-1) : undefined;
  if (resumeFrom) await checkSameTokenizer(resumeFrom.path, `--resume from ${resumeFrom.path}`, v.tokenizer!, tokenizer);
  if (resumeFrom) await checkSameOptimizer(resumeFrom.path, optimizer);
  const probe = await probeRecordLength(v["train-data"]!);
  const maxLength = intFlag("max-length", v["max-length"], probe.length, 1);
  if (maxLength !== probe.length)
    throw new UsageError(
      `--max-length ${maxLength} does not match the shards: ${probe.file} holds records of ${probe.length} tokens ` +
        `(prepare the data with --max-length ${maxLength}, or drop the flag)`,
    );
  const config = await trainModelConfig(
    task,
    {
      ...(v.preset !== undefined ? { preset: v.preset } : {}),
      ...(v["model-config"] !== undefined ? { modelConfig: v["model-config"] } : {}),
      ...(v["init-from"] !== undefined ? { initFrom: v["init-from"] } : {}),
      tokenizerDir: v.tokenizer!,
    },
    tokenizer,
    maxLength,
  );

  const accelerator = (v.accelerator ?? "auto") as Accelerator;
  if (!["auto", "cpu", "gpu", "tpu"].includes(accelerator))
    throw new UsageError(`--accelerator must be cpu, gpu, tpu or auto, got "${v.accelerator}"`);
  const strategy = (v.strategy ?? "auto") as StrategyName;
  if (!["auto", "one-device", "data-parallel"].includes(strategy))
    throw new UsageError(`--strategy must be auto, one-device or data-parallel, got "${v.strategy}"`);
  const precision = (v.precision ?? "32") as PrecisionName;
  if (!PRECISIONS.includes(precision)) throw new UsageError(`--precision must be one of ${PRECISIONS.join(", ")}, got "${v.precision}"`);
  if (v["pjrt-plugin"]) process.env.KILN_PJRT_PLUGIN = v["pjrt-plugin"];
  // Under kiln launch on GPUs/TPUs (--accelerator gpu/tpu, or auto with a CUDA/TPU plugin found), every
  // process is one of the XLA client's processes (its devices all of this process's, unless --devices says otherwise).
  const accelPlace = launchedAcceleratorPlace({ accelerator })?.place;
  const devices = selectDevices({
    accelerator,
    devices: accelPlace && v.devices === undefined ? "auto" : intFlag("devices", v.devices, 1, 1),
    ...(v.executor ? { executor: executorFlag(v.executor)! } : {}),
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
  const common = { maxLength, batchSize: batch * replicas, ignoreErrors: Boolean(v["skip-bad-records"]) };
  const train = await openDataset({
    files: v["train-data"]!,
    ...common,
    shuffle: true,
    seed,
    epochs: Infinity,
    shuffleBuffer: intFlag("shuffle-buffer-size", v["shuffle-buffer-size"], 2 ** 18, 1),
  });
  const evalData = v["eval-data"] ? await openDataset({ files: v["eval-data"], ...common, shuffle: false, epochs: 1 }) : undefined;
  // Before anything compiles: the shards were made with this tokenizer, and every one of them reads
  // through (framing, checksums, the count in its name), so that damage stops the run now, not hours in.
  for (const data of [train, evalData]) if (data) await checkDataTokenizer(data.files, v.tokenizer!);
  const checked = await checkInputs(train, evalData, rankPrefix(group));
  const epochs = intFlag("epochs", v.epochs, 1, 1);
  const maxSteps = v["max-steps"] !== undefined ? intFlag("max-steps", v["max-steps"], 0, 1) : epochs * train.batchesPerEpoch;
  const checkpointEvery = intFlag("checkpoint-every", v["checkpoint-every"], 0, 0);
  const logEvery = intFlag("log-every", v["log-every"], 10, 1);

  const trainer = new Trainer({
    outputDir: outputs.localDir,
    maxSteps,
    epochs,
    seed,
    gradientAccumulation: accum,
    strategy: makeStrategy(strategy, devices),
    ...(store ? { coordinationStore: store } : {}),
    precision,
    stepsPerExecution: intFlag("steps-per-execution", v["steps-per-execution"], 1, 1),
    evalEvery: intFlag("eval-every", v["eval-every"], 0, 0),
    logEvery,
    keepCheckpoints: intFlag("keep-checkpoints", v["keep-checkpoints"], 3, 1),
    resume: Boolean(v.resume),
    overwrite: Boolean(v.overwrite),
    onNonFinite: onNan,
    optimizer,
    progress: !v.quiet,
    callbacks: [
      ...(checkpointEvery > 0 ? [new ModelCheckpoint({ everySteps: checkpointEvery })] : []),
      ...(outputs.push ? [outputs.push] : []),
      ...(earlyStopping ? [earlyStopping] : []),
      ...(v["log-lr"] ? [new LearningRateMonitor(logEvery)] : []),
    ],
    ...(clipNorm !== undefined ? { clipNorm } : {}),
  });
  const model = createModel(config, { positionInit });
  const init = v["init-from"] ? await loadModel(v["init-from"], { task, missingHead: "init", seed, device: devices[0]! }) : undefined;
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
        `(${trainer.strategy.name}, precision ${precision})`,
    );
  stopOnSignals(trainer, preemptionSignal);
  const result = await trainer.fit({
    model,
    ...(init ? { params: init.params } : {}),
    tokenizerDir: v.tokenizer!,
    train,
    ...(evalData ? { eval: evalData } : {}),
    optimizer: {
      learningRate,
      weightDecay,
      ...(v.warmup !== undefined ? { warmupSteps: intFlag("warmup", v.warmup, 0, 0) } : {}),
    },
    ...(taskSpec(task).usesMasking
      ? {
          masking: { maskTokenId: tokenizer.maskId, vocabSize: tokenizer.vocabSize, specialIds: [...tokenizer.specialIds], mlmProbability },
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
  if (result.stopped) reportStopped(result.stopped, argv, main);
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

/** --resume continues with the optimizer its checkpoint was trained with (the state saved is that optimizer's). */
async function checkSameOptimizer(checkpoint: string, optimizer: OptimizerName): Promise<void> {
  let trainedWith: string;
  try {
    trainedWith = JSON.parse(await readFile(join(checkpoint, "trainer_state.json"), "utf8")).run_settings?.optimizer ?? "adamw";
  } catch {
    return; // a damaged checkpoint: the Trainer says why and falls back past it
  }
  if (trainedWith !== optimizer)
    throw new UsageError(
      `kiln train: --resume from ${checkpoint}, which was trained with --optimizer ${trainedWith}: ` +
        `give --optimizer ${trainedWith}, or train into another --output-dir`,
    );
}

/** --position-init's value: only a masked LM trained from scratch has a position table to start. */
function positionInitFlag(value: string | undefined, task: TrainingTask, initFrom: boolean): PositionInit {
  if (value === undefined) return "normal";
  if (!POSITION_INITS.includes(value as PositionInit))
    throw new UsageError(`--position-init must be one of ${POSITION_INITS.join(", ")}, got "${value}"`);
  if (task !== "mlm") throw new UsageError("kiln train: --position-init starts a masked LM's position table; --task causal-lm has none");
  if (initFrom) throw new UsageError("kiln train: --position-init starts a model from scratch; --init-from loads its positions");
  return value as PositionInit;
}

/** --early-stopping-patience/--early-stopping-min-delta as an EarlyStopping callback on eval_loss. */
function earlyStoppingFlags(v: {
  "early-stopping-patience"?: string;
  "early-stopping-min-delta"?: string;
  "eval-data"?: string[];
}): EarlyStopping | undefined {
  if (v["early-stopping-patience"] === undefined) {
    if (v["early-stopping-min-delta"] !== undefined)
      throw new UsageError("kiln train: --early-stopping-min-delta needs --early-stopping-patience N");
    return undefined;
  }
  const patience = intFlag("early-stopping-patience", v["early-stopping-patience"], 1, 1);
  if (!v["eval-data"]?.length)
    throw new UsageError(
      "kiln train: --early-stopping-patience watches eval_loss: give --eval-data (and --eval-every N to evaluate during an epoch)",
    );
  const minDelta = numberFlag("early-stopping-min-delta", v["early-stopping-min-delta"], 0);
  if (!(minDelta >= 0)) throw new UsageError(`--early-stopping-min-delta must be ≥ 0, got ${v["early-stopping-min-delta"]}`);
  return new EarlyStopping({ monitor: "eval_loss", mode: "min", patience, minDelta });
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
