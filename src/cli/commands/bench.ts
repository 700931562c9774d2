// `kiln bench train`: training throughput of a preset on synthetic batches (see src/train/bench-train.ts).
import { parseFlags, intFlag, executorFlag, noPositionals, UsageError } from "../args.js";
import { refuseGcs } from "../gcs-paths.js";
import { selectDevices, type Accelerator } from "../../distribute/devices.js";
import { setDefaultDevice } from "../../core/devices.js";
import { presetNames } from "../../models/index.js";
import { PRECISIONS, type PrecisionName } from "../../optim/precision.js";
import { benchTrain } from "../../train/bench-train.js";
import type { Command } from "./types.js";
import { taskFlag } from "../train-model.js";

const HELP = `Usage: kiln bench train [--task mlm|causal-lm] [--preset NAME] [--precision 32] [--per-replica-batch-size 32]
                       [--max-length 128] [--vocab N] [--json]

Times compiled training steps on synthetic batches (uniform random tokens, no padding): MLM (AdamW,
dropout 0.1, masking in the step) or, with --task causal-lm, next-token prediction. Tokens/s as the
median of --steps timed steps after --warmup steps, compile time apart, and MFU against the device's
measured f32 matmul peak. The CPU presets use a vocabulary of 8192, the others 32000.

  --task NAME                 mlm | causal-lm (default mlm)
  --preset NAME               mlm: ${presetNames("mlm").join(" | ")} (default mlm-small)
                              causal-lm: ${presetNames("causal-lm").join(" | ")} (default llama-small)
  --precision NAME            ${PRECISIONS.join(" | ")} (default 32)
  --per-replica-batch-size N  default 32
  --max-length N              default 128
  --vocab N                   vocabulary size (default 8192 for the CPU presets, 32000 for the others)
  --head labelled|all         mlm: the vocabulary head on the labelled positions only (default), or on every
                              position (the work the JAX and PyTorch peers do)
  --steps N  --warmup N       default 5 and 2
  --accelerator NAME          cpu | gpu | tpu | auto (default auto)
  --executor NAME             ort | xla: who runs the CPU (default ort; GPUs and TPUs always run on XLA)
  --pjrt-plugin PATH          a PJRT plugin (.so), or env KILN_PJRT_PLUGIN
  --json                      print one JSON object (otherwise a readable line)`;

export const benchCommand: Command = {
  name: "bench",
  summary: "benchmark training throughput (kiln bench train --help)",
  async run(argv) {
    const [sub, ...rest] = argv;
    if (sub === undefined || sub === "--help" || sub === "-h") return console.log(HELP);
    if (sub !== "train") throw new UsageError(`kiln bench: unknown benchmark "${sub}"; available: train`);
    const { values: v, positionals } = parseFlags("bench train", rest, {
      task: { type: "string" },
      preset: { type: "string" },
      precision: { type: "string" },
      "per-replica-batch-size": { type: "string" },
      "max-length": { type: "string" },
      vocab: { type: "string" },
      head: { type: "string" },
      steps: { type: "string" },
      warmup: { type: "string" },
      accelerator: { type: "string" },
      executor: { type: "string" },
      "pjrt-plugin": { type: "string" },
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    });
    if (v.help) return console.log(HELP);
    noPositionals("bench train", positionals);
    refuseGcs("pjrt-plugin", v["pjrt-plugin"], "a PJRT plugin");
    const task = taskFlag(v.task);
    const presets: string[] = presetNames(task);
    const preset = v.preset ?? (task === "mlm" ? "mlm-small" : "llama-small");
    if (!presets.includes(preset))
      throw new UsageError(`--preset must be one of ${presets.join(", ")} for --task ${task}, got "${preset}"`);
    if (task === "causal-lm" && v.head !== undefined)
      throw new UsageError("--head sizes the MLM's vocabulary head; a causal LM predicts at every position: drop --head");
    const precision = (v.precision ?? "32") as PrecisionName;
    const head = (v.head ?? "labelled") as "labelled" | "all";
    if (!["labelled", "all"].includes(head)) throw new UsageError(`--head must be labelled or all, got "${v.head}"`);
    if (!PRECISIONS.includes(precision)) throw new UsageError(`--precision must be one of ${PRECISIONS.join(", ")}, got "${v.precision}"`);
    const vocab = v.vocab !== undefined ? intFlag("vocab", v.vocab, 0, 6) : undefined;
    const [device] = selectDevices({
      accelerator: (v.accelerator ?? "auto") as Accelerator,
      devices: 1,
      ...(v.executor ? { executor: executorFlag(v.executor)! } : {}),
      ...(v["pjrt-plugin"] ? { pjrtPlugin: v["pjrt-plugin"] } : {}),
    });
    // Anything made without naming a device stays on the benchmarked one: an XLA run never loads ONNX Runtime.
    setDefaultDevice(device!);
    const r = await benchTrain({
      task,
      preset,
      precision,
      device: device!,
      batch: intFlag("per-replica-batch-size", v["per-replica-batch-size"], 32, 1),
      maxLength: intFlag("max-length", v["max-length"], 128, 1),
      head,
      steps: intFlag("steps", v.steps, 5, 1),
      warmup: intFlag("warmup", v.warmup, 2, 1),
      ...(vocab !== undefined ? { vocab } : {}),
    });
    if (v.json) console.log(JSON.stringify(r));
    else
      console.log(
        `${r.task} ${r.preset} on ${r.device} (${r.executor}, ${r.precision}): ${r.tokens_per_s} tokens/s, ${r.step_s}s/step, ` +
          `compile ${r.compile_s}s, MFU ${(100 * r.mfu).toFixed(1)}% of ${r.peak_gflops} GFLOP/s`,
      );
  },
};
