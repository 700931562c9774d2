// One process of the multi-process training bench (started by `npm run bench -- train --processes N`
// under mpirun): compiled gradient steps of a preset on synthetic batches, the MPI all-reduce, the
// update; rank 0 prints one JSON line with the global tokens/s (median step) and where a step's time goes.
import * as k from "../../src/index.js";
import { AdamW } from "../../src/optim/adamw.js";
import { joinProcessGroup } from "../../src/distribute/multi-process.js";
import { OneDevice } from "../../src/distribute/strategy.js";
import { benchModel } from "../../src/train/bench-train.js";
import { CrossProcessSteps } from "../../src/train/cross-process-steps.js";
import { flatGradientLength } from "../../src/train/split-step.js";
import type { TrainState } from "../../src/train/train-step.js";
import type { TrainingTask } from "../../src/train/objectives/objective.js";

const [task, preset, batchArg, lengthArg, stepsArg, warmupArg] = process.argv.slice(2);
const batch = Number(batchArg),
  length = Number(lengthArg),
  steps = Number(stepsArg),
  warmup = Number(warmupArg);
const group = joinProcessGroup()!;
const device = k.getDefaultDevice();
const vocab = 8192;
const { model, objective } = benchModel({ task: task as TrainingTask, preset: preset!, maxLength: length }, vocab);
const optimizer = new AdamW({ learningRate: 1e-4, weightDecay: 0.01 });
const params = k.jit((key: k.Array) => model.init(key), { name: "init", device })(k.randomKey(0));
let state: TrainState = { params, opt: k.jit((p: unknown) => optimizer.init(p), { name: "opt_init", device })(params) };
const steps_ = new CrossProcessSteps(new OneDevice(device), group, { objective, optimizer, dropoutSeed: 1 });

const ids = new Int32Array(batch * length);
let seed = 12345 + group.rank;
for (let i = 0; i < ids.length; i++) {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  ids[i] = 5 + (seed % (vocab - 5));
}
const shape = [1, batch, length];
const inputs = {
  inputIds: k.array(ids, { shape, device }),
  attentionMask: k.array(new Int32Array(ids.length).fill(1), { shape, device }),
  exampleOffset: k.array(new Int32Array([group.rank * batch]), { shape: [1], device }),
  epoch: k.array(new Int32Array([0]), { shape: [1], device }),
};
const times: number[] = [];
let compileS = 0;
for (let i = 0; i < warmup + steps; i++) {
  if (i === warmup) Object.assign(steps_.timings, { gradient: 0, allReduce: 0, update: 0, steps: 0 });
  const t0 = performance.now();
  const out = await steps_.run(state, [inputs], i);
  state = out.state;
  await out.scalars.data();
  const s = (performance.now() - t0) / 1000;
  if (i === 0) compileS = s;
  if (i >= warmup) times.push(s);
}
const sorted = [...times].sort((a, b) => a - b);
const stepS = sorted[Math.floor(sorted.length / 2)]!;
const t = steps_.timings;
if (group.rank === 0)
  console.log(
    JSON.stringify({
      bench: "train",
      task,
      preset,
      processes: group.size,
      threads_per_process: Number(process.env.KILN_CPU_THREADS ?? 0) || undefined,
      batch_per_process: batch,
      global_batch: batch * group.size,
      seq: length,
      gradient_elements: flatGradientLength(params),
      tokens_per_s: Math.round((batch * group.size * length) / stepS),
      step_s: Number(stepS.toFixed(4)),
      gradient_s: Number((t.gradient / t.steps).toFixed(4)),
      allreduce_s: Number((t.allReduce / t.steps).toFixed(4)),
      update_s: Number((t.update / t.steps).toFixed(4)),
      compile_s: Number(compileS.toFixed(2)),
    }),
  );
