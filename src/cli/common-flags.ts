// Flags that several commands share (train, bench train, quickstart), declared once for their tables.
import { CPU_EXECUTORS } from "../distribute/devices.js";
import { PRECISIONS } from "../optim/precision.js";
import { TASK_SPECS } from "../train/tasks/index.js";
import type { TrainingTask } from "../train/objectives/objective.js";
import type { ModelTask } from "../models/spec.js";

/** The tasks that train from token shards (language modelling): what bench train and quickstart run. */
export const TASKS = TASK_SPECS.filter((t) => !t.labelledData).map((t) => t.name) as readonly ModelTask[];

/** Every task `kiln train` trains (the language-modelling ones, then those on labelled examples). */
export const TRAIN_TASKS: readonly TrainingTask[] = TASK_SPECS.map((t) => t.name);

export const ACCELERATORS = ["cpu", "gpu", "tpu", "auto"] as const;

export const TASK_FLAG = { type: "enum", values: TASKS, default: TASKS[0]!, value: "NAME", help: TASKS.join(" | ") } as const;

export const TRAIN_TASK_FLAG = { ...TASK_FLAG, values: TRAIN_TASKS, help: TRAIN_TASKS.join(" | ") } as const;

export const PRECISION_FLAG = { type: "enum", values: PRECISIONS, default: "32", value: "NAME", help: PRECISIONS.join(" | ") } as const;

export const EXECUTOR_FLAG = {
  type: "enum",
  values: CPU_EXECUTORS,
  value: "NAME",
  why: `must be ${CPU_EXECUTORS.join(" or ")} (who runs the CPU; GPUs and TPUs always run on XLA)`,
  help: "ort | xla: who runs the CPU (default ort; GPUs and TPUs always run on XLA)",
} as const;

export const PJRT_PLUGIN_FLAG = {
  type: "string",
  value: "PATH",
  option: "pjrtPlugin",
  help: "a PJRT plugin (.so), or env KILN_PJRT_PLUGIN",
} as const;

export const VERBOSE_FLAG = {
  type: "bool",
  help: "also say which devices were looked for (e.g. that no GPU/TPU plugin was found)",
} as const;

/** The check of a share flag (--mlm-probability, --decay-fraction and the like): above 0, at most 1 (as Trainer.fit takes). */
export const SHARE_CHECK = (p: number) => (p > 0 && p <= 1 ? undefined : "must be in (0, 1]");

/**
 * Where `selectDevices` sends its notices (e.g. no GPU/TPU plugin found, so the CPU runs): to stderr
 * when the user asked for an accelerator by name (--accelerator auto) or for --verbose, else nowhere.
 */
export function deviceNotice(askedForAccelerator: boolean, verbose: boolean): (line: string) => void {
  return askedForAccelerator || verbose ? (line) => console.error(line) : () => {};
}
