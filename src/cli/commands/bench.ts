// `kiln bench train`: training throughput of a preset on synthetic batches (see src/train/bench-train.ts).
import { UsageError } from "../args.js";
import { flagTable, helpText, readFlags } from "../flags.js";
import { didYouMean } from "../nearest.js";
import { ACCELERATORS, deviceNotice, EXECUTOR_FLAG, PJRT_PLUGIN_FLAG, PRECISION_FLAG, TASK_FLAG, VERBOSE_FLAG } from "../common-flags.js";
import { refuseGcs } from "../gcs-paths.js";
import { selectDevices } from "../../distribute/devices.js";
import { setDefaultDevice } from "../../core/devices.js";
import { presetNames } from "../../models/index.js";
import { benchTrain } from "../../train/bench-train.js";
import { modelTaskOf, TASK_SPECS, taskSpec } from "../../train/tasks/index.js";
import { checkTaskSettings } from "../../train/trainer-options-check.js";
import { ownerOf, presetsByTask } from "../task-help.js";
import type { Command } from "./types.js";

/** The tasks the benchmark times: those with a bench preset. */
const BENCHED = TASK_SPECS.filter((t) => t.benchPreset !== undefined);
const BENCHED_TASKS = BENCHED.map((t) => t.name);

/** What a timed step computes, by task: "MLM (…) or, with --task causal-lm, next-token prediction". */
const STEPS_TIMED = BENCHED.map((t, i) => (i ? `with --task ${t.name}, ` : "") + t.benchHelp).join(" or, ");

const TRAIN = flagTable({
  command: "bench train",
  usage: `Usage: kiln bench train [--task ${BENCHED_TASKS.join("|")}] [--preset NAME] [--precision 32] [--per-replica-batch-size 32]
                       [--max-length 128] [--vocab N] [--json]`,
  about: `Times compiled training steps on synthetic batches (uniform random tokens, no padding): ${STEPS_TIMED}. Tokens/s as the
median of --steps timed steps after --warmup steps, compile time apart, and MFU against the device's
measured f32 matmul peak. The CPU presets use a vocabulary of 8192, the others 32000.`,
  flags: {
    task: { ...TASK_FLAG, values: BENCHED_TASKS, help: BENCHED_TASKS.join(" | ") },
    preset: {
      type: "string",
      value: "NAME",
      help: presetsByTask("\n", " | ", BENCHED, (t) => ` (default ${t.benchPreset})`),
    },
    precision: PRECISION_FLAG,
    "per-replica-batch-size": { type: "int", min: 1, default: 32, help: "examples per step" },
    "max-length": { type: "int", min: 1, default: 128, help: "tokens per example" },
    vocab: { type: "int", min: 6, help: "vocabulary size (default 8192 for the CPU presets, 32000 for the others)" },
    head: {
      type: "enum",
      values: ["labelled", "all"],
      help:
        `${ownerOf("head")}: the vocabulary head on the labelled positions only (default), or on every\n` +
        "position (the work the JAX and PyTorch peers do)",
    },
    steps: { type: "int", min: 1, default: 5, help: "timed steps" },
    warmup: { type: "int", min: 1, default: 2, help: "untimed steps before them" },
    accelerator: { type: "enum", values: ACCELERATORS, default: "auto", value: "NAME", help: "cpu | gpu | tpu | auto" },
    executor: EXECUTOR_FLAG,
    "pjrt-plugin": PJRT_PLUGIN_FLAG,
    json: { type: "bool", help: "print one JSON object (otherwise a readable line)" },
    verbose: VERBOSE_FLAG,
  },
});

export const benchCommand: Command = {
  name: "bench",
  summary: "benchmark training throughput (kiln bench train --help)",
  async run(argv) {
    const [sub, ...rest] = argv;
    if (sub === undefined || sub === "--help" || sub === "-h") return console.log(helpText(TRAIN));
    if (sub !== "train")
      throw new UsageError(`kiln bench: unknown benchmark "${sub}"${didYouMean(sub, ["train"], (n) => `"${n}"`)}; available: train`);
    const flags = readFlags(TRAIN, rest);
    if (!flags) return;
    const { values: v, given } = flags;
    refuseGcs("pjrt-plugin", v["pjrt-plugin"], "a PJRT plugin");
    const task = v.task;
    const presets: string[] = presetNames(modelTaskOf(taskSpec(task)));
    const preset = v.preset ?? taskSpec(task).benchPreset!;
    if (!presets.includes(preset))
      throw new UsageError(`--preset must be one of ${presets.join(", ")} for --task ${task}, got "${preset}"`);
    checkTaskSettings(task, { head: v.head }, "benchTrain");
    const [device] = selectDevices({
      accelerator: v.accelerator,
      devices: 1,
      ...(v.executor ? { executor: v.executor } : {}),
      ...(v["pjrt-plugin"] ? { pjrtPlugin: v["pjrt-plugin"] } : {}),
      notice: deviceNotice(given.has("accelerator"), v.verbose),
    });
    // Anything made without naming a device stays on the benchmarked one: an XLA run never loads ONNX Runtime.
    setDefaultDevice(device!);
    const r = await benchTrain({
      task,
      preset,
      precision: v.precision,
      device: device!,
      batch: v["per-replica-batch-size"],
      maxLength: v["max-length"],
      ...(v.head !== undefined ? { head: v.head } : {}),
      steps: v.steps,
      warmup: v.warmup,
      ...(v.vocab !== undefined ? { vocab: v.vocab } : {}),
    });
    if (v.json) console.log(JSON.stringify(r));
    else
      console.log(
        `${r.task} ${r.preset} on ${r.device} (${r.executor}, ${r.precision}): ${r.tokens_per_s} tokens/s, ${r.step_s}s/step, ` +
          `compile ${r.compile_s}s, MFU ${(100 * r.mfu).toFixed(1)}% of ${r.peak_gflops} GFLOP/s`,
      );
  },
};
