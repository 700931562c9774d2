// `kiln train`: masked-LM (the default) or causal-LM (--task causal-lm) training from the same TFRecord
// shards, with the reference pipeline's flags.
import { existsSync } from "node:fs";
import { join } from "node:path";
import * as k from "../../core/index.js";
import { UsageError } from "../args.js";
import { readFlags } from "../flags.js";
import { TRAIN_FLAGS } from "./train-flags.js";
import { deviceNotice } from "../common-flags.js";
import { Trainer } from "../../train/trainer.js";
import { taskSpec } from "../../train/tasks/index.js";
import { EarlyStopping, LearningRateMonitor, ModelCheckpoint } from "../../train/callbacks.js";
import { prepareOutputDir } from "../../train/output-dir.js";
import { openTrainingData, skippedRecordLines } from "../../train/training-data.js";
import { trainingModel, trainingModelPlan } from "../../train/training-model.js";
import type { Command } from "./types.js";
import { rankPrefix } from "../../distribute/multi-process.js";
import { launchedStore } from "../launched-store.js";
import { trainOutputs } from "../train-outputs.js";
import { describeGcsRequestCounts, isGcsPath } from "../../data/storage/index.js";
import { localInputDir, localInputFile, refuseGcs } from "../gcs-paths.js";
import { preemptionSignalFlag, reportStopped, stopOnSignals } from "../stop-on-signal.js";

async function runTrain(argv: string[]): Promise<void> {
  const flags = readFlags(TRAIN_FLAGS, argv);
  if (!flags) return;
  const { values: v, given } = flags;
  if (v.resume && v.overwrite)
    throw new UsageError("kiln train: --resume continues the run in --output-dir and --overwrite replaces it: give one");
  const earlyStopping = earlyStoppingFlags(v, given.has("early-stopping-min-delta"));
  const preemptionSignal = preemptionSignalFlag(v["preemption-signal"]);
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
  if (v["max-time"] !== undefined && v.warmup !== undefined)
    throw new UsageError(
      "kiln train: --warmup counts steps, but under --max-time the schedule follows the time budget " +
        "(its warmup is a twentieth of the budget): drop --warmup",
    );
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
  const { tokenizer, maxLength, config } = await trainingModelPlan({
    task,
    source: {
      ...(v.preset !== undefined ? { preset: v.preset } : {}),
      ...(modelConfig !== undefined ? { modelConfig } : {}),
      ...(initFrom !== undefined ? { initFrom } : {}),
    },
    tokenizerDir,
    trainData: v["train-data"],
    maxLength: v["max-length"],
    ...(v.resume ? { resume: { outputDir: outputs.localDir, optimizer: v.optimizer } } : {}),
  });

  // Under kiln launch on GPUs/TPUs every process is one of the XLA client's processes (its devices all of
  // this process's unless --devices says otherwise); under mpiexec/mpirun, --devices replicas each.
  const store = await launchedStore({ accelerator: v.accelerator, pjrtPlugin: v["pjrt-plugin"] });
  const checkpointEvery = v["checkpoint-every"] ?? 0;
  const trainer = new Trainer({
    outputDir: outputs.localDir,
    ...(v["max-steps"] !== undefined ? { maxSteps: v["max-steps"] } : {}),
    ...(v["max-time"] !== undefined ? { maxTime: v["max-time"] } : {}),
    // A time budget alone bounds the run unless --epochs is given too.
    ...(v["max-time"] === undefined || given.has("epochs") ? { epochs: v.epochs } : {}),
    seed: v.seed,
    gradientAccumulation: accum,
    accelerator: v.accelerator,
    devices: v.devices ?? (store ? "auto" : 1),
    ...(v.executor ? { executor: v.executor } : {}),
    ...(v["pjrt-plugin"] !== undefined ? { pjrtPlugin: v["pjrt-plugin"] } : {}),
    notice: deviceNotice(given.has("accelerator"), v.verbose),
    strategy: v.strategy,
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
  const devices = trainer.strategy.devices;
  // The default device is the process's: what the command computes without naming a device (shapes,
  // keys) runs where it trains, as in the quickstart (a run on XLA never loads ONNX Runtime).
  k.setDefaultDevice(devices[0]!);
  const say = (line: string) => console.error(`${rankPrefix(trainer.group)}kiln train: ${line}`);
  const data = await openTrainingData({
    train: v["train-data"],
    eval: v["eval-data"],
    maxLength,
    globalBatch: batch * trainer.worldReplicas,
    seed: v.seed,
    shuffleBuffer: v["shuffle-buffer-size"],
    skipBadRecords: v["skip-bad-records"],
    tokenizerDir,
    notice: say,
  });
  const maxSteps = v["max-steps"] ?? v.epochs * data.train.batchesPerEpoch;
  const length =
    v["max-time"] === undefined
      ? `${maxSteps} steps`
      : `up to ${v["max-time"]}` + (v["max-steps"] !== undefined || given.has("epochs") ? ` or ${maxSteps} steps` : "");
  const main = trainer.isMainRank;
  const built = await trainingModel(config, { task, initFrom, positionInit: v["position-init"], seed: v.seed, device: devices[0]! });
  for (const notice of main ? built.notices : []) console.error(`kiln train: ${notice}`);
  if (main)
    console.error(
      `kiln train: ${config.model_type} ${(built.parameterCount / 1e6).toFixed(2)}M parameters, ` +
        `${data.trainRecords} training records of ${maxLength} tokens, ` +
        `${length} of ${trainer.worldReplicas} × ${batch} on ${devices.map((d) => d.id).join(", ")}` +
        (trainer.group ? ` in each of ${trainer.group.size} processes ` : " ") +
        `(${trainer.strategy.name}, precision ${v.precision})`,
    );
  stopOnSignals(trainer, preemptionSignal);
  const result = await trainer.fit({
    model: built.model,
    ...(built.params ? { params: built.params } : {}),
    tokenizerDir,
    train: data.train,
    ...(data.eval ? { eval: data.eval } : {}),
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
  for (const line of skippedRecordLines(data)) say(line);
  // What gs:// reads and pushes met on the way: operations, retries by cause, resumed transfers.
  const gcsCounts = describeGcsRequestCounts();
  if (gcsCounts) say(gcsCounts);
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
