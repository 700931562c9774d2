// `kiln train`: masked-LM (the default) or causal-LM (--task causal-lm) training from the same TFRecord
// shards, with the reference pipeline's flags.
import { existsSync } from "node:fs";
import { join } from "node:path";
import * as k from "../../core/index.js";
import { UsageError } from "../args.js";
import { readFlags } from "../flags.js";
import { TRAIN_FLAGS } from "./train-flags.js";
import { deviceNotice } from "../common-flags.js";
import { loadTokenizer } from "../../text/index.js";
import { openDataset, type TFRecordDataset } from "../../data/pipeline/dataset.js";
import { checkDataTokenizer } from "../../data/prepare/manifest.js";
import { createModel, loadModel } from "../../models/index.js";
import { Trainer } from "../../train/trainer.js";
import { taskSpec } from "../../train/tasks/index.js";
import { EarlyStopping, LearningRateMonitor, ModelCheckpoint } from "../../train/callbacks.js";
import { listCheckpoints } from "../../train/checkpoint.js";
import { dataRecordLength } from "../../train/data-probe.js";
import { prepareOutputDir } from "../../train/output-dir.js";
import type { Command } from "./types.js";
import { launchedAcceleratorPlace, selectDevices } from "../../distribute/devices.js";
import { makeStrategy } from "../../distribute/strategy.js";
import { joinAcceleratorGroup, joinProcessGroup, rankPrefix, type ProcessGroup } from "../../distribute/multi-process.js";
import { StoreClient } from "../../launch/store-client.js";
import { trainOutputs } from "../train-outputs.js";
import { describeGcsRequestCounts, isGcsPath } from "../../data/storage/index.js";
import { localInputDir, localInputFile, refuseGcs } from "../gcs-paths.js";
import { checkSameOptimizer, checkSameTokenizer, trainingModelConfig } from "../../train/model-source.js";
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
  stopOnSignals(trainer, preemptionSignal);
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
  // What gs:// reads and pushes met on the way: operations, retries by cause, resumed transfers.
  const gcsCounts = describeGcsRequestCounts();
  if (gcsCounts) console.error(`${rankPrefix(group)}kiln train: ${gcsCounts}`);
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
