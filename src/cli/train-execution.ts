// Which executor and precision `kiln train` runs the CPU with: --executor and --precision as given, or,
// where --executor is left out (or --precision auto asks), the choice measured on this machine
// (train/choose-execution.ts: a probe at the first run of a shape, cached per user). GPUs and TPUs
// always run on XLA, and ranks of a multi-process run must not each decide on their own measurement:
// neither is probed.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { UsageError } from "./args.js";
import { isGcsPath } from "../data/storage/index.js";
import { openClassificationDataset } from "../data/pipeline/classification-dataset.js";
import { classifierConfig, type ClassifierConfig } from "../models/classification/config.js";
import { loadAcceleratorExecutor, type CpuExecutorName } from "../distribute/devices.js";
import { processPlace } from "../distribute/multi-process.js";
import { discoverPjrtPlugin } from "../exec/xla/index.js";
import { modelSpec, type ModelConfig } from "../models/index.js";
import type { PrecisionName } from "../optim/precision.js";
import { chooseCpuExecution } from "../train/choose-execution.js";

/**
 * Models narrower than this are not probed unless --precision auto asks: their steps are overhead, and a
 * probe's XLA compile costs more than it could save.
 */
const PROBE_MIN_WIDTH = 128;

export interface TrainExecutionFlags {
  executor: CpuExecutorName | undefined;
  precision: PrecisionName | "auto";
  accelerator: "auto" | "cpu" | "gpu" | "tpu";
  pjrtPlugin: string | undefined;
  /** --devices (default 1). */
  devices: number | undefined;
  /** Records per compiled micro-batch. */
  batch: number;
  maxLength: number;
  config: ModelConfig;
  /** Where the one line saying what runs and why goes. */
  say: (line: string) => void;
}

/** The executor (undefined: the default device) and precision the run trains with. */
export async function trainExecution(f: TrainExecutionFlags): Promise<{ executor?: CpuExecutorName; precision: PrecisionName }> {
  const fixed = f.executor ? { executor: f.executor } : {};
  const runsOn = platformOf(f.accelerator, f.pjrtPlugin, f.precision === "auto");
  const onAccelerator = runsOn === "accelerator";
  const place = processPlace();
  if (runsOn !== "cpu" || place) {
    if (f.precision === "auto")
      throw new UsageError(
        onAccelerator
          ? "--precision auto measures the CPU executors; on a GPU/TPU give --precision 32 or bf16-mixed"
          : `--precision auto measures on this machine, and each of the ${place!.size} processes would measure its own: ` +
              "give --precision 32 or bf16-mixed (`kiln devices --probe` shows what a single process would pick)",
      );
    return { ...fixed, precision: f.precision };
  }
  if (f.executor && f.precision !== "auto") return { executor: f.executor, precision: f.precision };
  if (f.precision !== "auto" && modelSpec(f.config).layersAndWidth(f.config).width < PROBE_MIN_WIDTH) return { precision: f.precision };
  const choice = await chooseCpuExecution({
    config: f.config,
    batch: f.batch,
    maxLength: f.maxLength,
    precision: f.precision,
    ...(f.devices !== undefined ? { devices: f.devices } : {}),
    ...(f.executor ? { executors: [f.executor] } : {}),
    ...(f.pjrtPlugin ? { pjrtPlugin: f.pjrtPlugin } : {}),
    notice: f.say,
  });
  f.say(choice.line);
  return { executor: choice.executor, precision: choice.precision };
}

/**
 * The shape a classifier's run probes: the --init-from directory's config with the data's classes, and
 * the data's longest padded length (its batches vary in length; the longest carry most of the work).
 * Undefined where they cannot be read here, before the run's own checks (data on gs://, a directory
 * or a file those checks refuse): the run then takes the default executor, and its checks say what
 * is wrong in their own words.
 */
export async function classifierProbeShape(
  initFrom: string | undefined,
  trainData: readonly string[],
): Promise<{ config: ClassifierConfig; maxLength: number } | undefined> {
  if (initFrom === undefined || trainData.some(isGcsPath)) return undefined;
  try {
    const file = join(initFrom, "config.json");
    const raw = JSON.parse(await readFile(file, "utf8")) as Record<string, unknown>;
    const data = await openClassificationDataset({ files: [...trainData], batchSize: 1, shuffle: false });
    return { config: classifierConfig(raw, file, { labels: data.labels }), maxLength: Math.max(...data.paddedLengths) };
  } catch {
    return undefined;
  }
}

/**
 * The executor and precision as given, where the run's shape is not known before its checks (a
 * classifier's, see classifierProbeShape): --precision auto, which must measure, is refused.
 */
export function givenExecution(
  executor: CpuExecutorName | undefined,
  precision: PrecisionName | "auto",
  task: string,
): { executor?: CpuExecutorName; precision: PrecisionName } {
  if (precision === "auto")
    throw new UsageError(`--precision auto measures a language model's step; for --task ${task} give --precision 32 or bf16-mixed`);
  return { ...(executor ? { executor } : {}), precision };
}

/**
 * Where --accelerator runs: a GPU/TPU by name, or auto with a GPU/TPU plugin found. A plugin named with
 * auto (--pjrt-plugin, KILN_PJRT_PLUGIN) may be either: it is loaded to ask only for --precision auto,
 * which must know; otherwise it is left to the run (loading it twice would make two clients of a GPU).
 */
function platformOf(
  accelerator: TrainExecutionFlags["accelerator"],
  pjrtPlugin: string | undefined,
  mustKnow: boolean,
): "cpu" | "accelerator" | "unknown" {
  if (accelerator !== "auto") return accelerator === "cpu" ? "cpu" : "accelerator";
  const found = discoverPjrtPlugin(pjrtPlugin ? { pluginPath: pjrtPlugin } : {});
  if ("notFound" in found) return "cpu";
  if (found.kind !== "explicit") return found.kind === "cpu" ? "cpu" : "accelerator";
  if (!mustKnow) return "unknown";
  const platform = loadAcceleratorExecutor(found.path).executor?.platform;
  return platform !== undefined && platform !== "cpu" ? "accelerator" : "cpu";
}
