// `npm run bench -- profile-train [--task causal-lm] [--preset llama-small] [--batch 32] [--seq 128] [--vocab N] [--threads 2]
// [--steps 3] [--top 12]`: where a compiled training step spends its time (`--task sequence-classification`: the
// step of the classifier of all-MiniLM-L6-v2's shapes `bench train --task sequence-classification` times). The step `bench train` times
// is compiled by Kiln's CPU executor with ONNX Runtime's profiler on (the same graph, generated kernels
// included, and thread settings); the node events of the timed steps are summed by op type and by node,
// printed as JSON lines with "bench": "profile-train", largest first.
import * as k from "../src/index.js";
import { AdamW } from "../src/optim/adamw.js";
import { benchModel } from "../src/train/bench-train.js";
import { makeTrainStep, type TrainState } from "../src/train/train-step.js";
import type { TrainingTask } from "../src/train/objectives/objective.js";
import { TASK_SPECS, taskSpec } from "../src/train/tasks/index.js";
import { benchExecutor } from "./lib/ort-peer.js";
import { flag, profileProgram } from "./lib/ort-profile.js";
import { lowerGraph } from "../src/exec/ort/lower-program.js";
import { pointwiseCompiler } from "../src/exec/ort/pointwise-library.js";
import { MINILM_SHAPES, minilmClassifier } from "./lib/classify-model.js";

export async function run(args: string[]): Promise<void> {
  const task = flag(args, "task", TASK_SPECS[0]!.name) as TrainingTask;
  // A task on labelled data profiles all-MiniLM-L6-v2's classifier (bench/lib/classify-model.ts).
  const classify = taskSpec(task).labelledData === true;
  const preset = flag(args, "preset", classify ? "minilm-l6" : taskSpec(task).benchPreset!);
  const batch = Number(flag(args, "batch", "32")),
    seq = Number(flag(args, "seq", "128")),
    threads = Number(flag(args, "threads", "2")),
    steps = Number(flag(args, "steps", "3")),
    top = Number(flag(args, "top", "12"));
  const executor = benchExecutor(threads);
  const device = executor.devices()[0]!;
  const vocab = Number(flag(args, "vocab", String(classify ? MINILM_SHAPES.vocab_size : preset.endsWith("-small") ? 8192 : 32000)));
  const { objective } = classify ? minilmClassifier() : benchModel({ task, preset, maxLength: seq }, vocab);
  const optimizer = new AdamW({ learningRate: 1e-4, weightDecay: 0.01 });
  const params = k.jit((key: k.Array) => objective.model.init(key), { device })(k.randomKey(0));
  const state: TrainState = { params, opt: k.jit((p: unknown) => optimizer.init(p), { device })(params) };
  const ids = Int32Array.from({ length: batch * seq }, (_, i) => 5 + ((i * 7919) % (vocab - 5)));
  const inputs = {
    inputIds: k.array(ids, { shape: [batch, seq], device }),
    attentionMask: k.array(new Int32Array(ids.length).fill(1), { shape: [batch, seq], device }),
    exampleOffset: k.array(new Int32Array([0]), { shape: [], device }),
    epoch: k.array(new Int32Array([0]), { shape: [], device }),
    ...(classify
      ? {
          labels: k.array(
            Int32Array.from({ length: batch }, (_, i) => i % 2),
            { shape: [batch], device },
          ),
        }
      : {}),
  };
  const step = k.array(new Int32Array([0]), { shape: [], device });
  const fn = k.jit(makeTrainStep({ objective, optimizer, dropoutSeed: 1 }), { device });
  const program = fn.lower(state, inputs, step);
  const nodes = lowerGraph(program, 1, { relayOutConstants: true, pointwise: pointwiseCompiler() !== null }).nodeCount;
  const leaves = k.leaves<k.Array>([state, inputs, step] as unknown as k.PyTree);

  // The first runs (allocations, first-touch) are left out of the sums.
  const profile = await profileProgram(
    program,
    leaves.map((a) => a.dataSync()),
    { threads, runs: steps, prefix: "train" },
  );
  const total = profile.totalUs;
  const ms = (us: number) => Number((us / 1000 / steps).toFixed(1));
  const wallMs = profile.wallMs;
  console.log(
    JSON.stringify({
      bench: "profile-train",
      task,
      preset,
      batch,
      seq,
      threads,
      onnx_nodes: nodes,
      step_ms: Number(wallMs.toFixed(1)),
      kernel_ms_per_step: ms(total),
    }),
  );
  for (const [opType, us] of profile.sumBy("op", top))
    console.log(JSON.stringify({ bench: "profile-train", op_type: opType, ms_per_step: ms(us), share: Number((us / total).toFixed(3)) }));
  for (const [node, us] of profile.sumBy("node", top))
    console.log(JSON.stringify({ bench: "profile-train", node, ms_per_step: ms(us), share: Number((us / total).toFixed(3)) }));
}
