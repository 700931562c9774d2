// The tiny training run (tiny-training.ts) as one process of several, for tests that start it under
// mpiexec/mpirun:
//   node dist/test/helpers/multi-process-training.js DATA_DIR OUT_DIR MAX_STEPS [--task causal-lm]
//     [--trainer JSON] [--stop-after N] [--resume]
// Every rank prints "rank R pid P step N" after each step (the kill test finds its victim's pid there);
// --stop-after N ends the run after step N as a callback's stop does (a checkpoint, no interruption).
// SIGINT and SIGTERM stop the run after the step in flight, with a checkpoint, through the Trainer's
// `signal` (the library installs no handlers of its own; kiln train's are in src/cli/stop-on-signal.ts).
import { trainTiny } from "./tiny-training.js";
import type { Callback } from "../../src/train/callbacks.js";
import type { TrainerOptions } from "../../src/train/trainer.js";
import type { TrainingTask } from "../../src/train/objectives/objective.js";

const [dataDir, outDir, steps] = process.argv.slice(2);
const flag = (name: string) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};
const trainer = JSON.parse(flag("--trainer") ?? "{}") as Partial<TrainerOptions>;
const stopAfter = flag("--stop-after") !== undefined ? Number(flag("--stop-after")) : Infinity;
const rank = process.env.PMI_RANK ?? process.env.OMPI_COMM_WORLD_RANK ?? "0";
const report: Callback = {
  onStepEnd: (t) => {
    process.stdout.write(`rank ${rank} pid ${process.pid} step ${t.globalStep}\n`);
    if (t.globalStep >= stopAfter) t.shouldStop = true;
  },
};
const stop = new AbortController();
for (const s of ["SIGINT", "SIGTERM"] as const) process.once(s, () => stop.abort(s));
await trainTiny(dataDir!, outDir!, Number(steps), {
  resume: process.argv.includes("--resume"),
  callbacks: [report],
  trainer: { progress: false, ...trainer, signal: stop.signal },
  task: (flag("--task") ?? "mlm") as TrainingTask,
});
