// The programs a fit() runs: the training step (K steps per call, one program; or, across processes
// on CPUs, a gradient program and an update program with MPI's all-reduce between) and the evaluation
// step, compiled for the Trainer's strategy.
import * as k from "../core/index.js";
import type { Strategy } from "../distribute/strategy.js";
import type { ProcessGroup } from "../distribute/multi-process.js";
import type { Optimizer } from "../optim/optimizer.js";
import type { PrecisionPolicy } from "../optim/precision.js";
import { CrossProcessSteps } from "./cross-process-steps.js";
import type { EvalFn } from "./evaluation-loop.js";
import type { RunSteps } from "./fit-loop.js";
import type { TrainingObjective } from "./objectives/objective.js";
import { groupInputs, onEachReplica } from "./step-inputs.js";
import { makeEvalStep, makeMultiStep, makeTrainStep } from "./train-step.js";
import type { TrainerOptions } from "./trainer-options.js";

type StepSettings = Pick<TrainerOptions, "clipNorm" | "lossScale" | "loops"> &
  Required<Pick<TrainerOptions, "gradientAccumulation" | "seed" | "onNonFinite">> & { policy: PrecisionPolicy };

export function compileSteps(
  strategy: Strategy,
  group: ProcessGroup | undefined,
  o: StepSettings,
  objective: TrainingObjective,
  evalObjective: TrainingObjective,
  optimizer: Optimizer<any>,
  optimizerAt?: (fraction: k.Array) => Optimizer<any>,
): { runSteps: RunSteps; compiles: () => number; evalFn: EvalFn } {
  const stepOptions = {
    objective,
    optimizer,
    ...(optimizerAt ? { optimizerAt } : {}),
    computeDtype: o.policy.computeDtype,
    microBatches: o.gradientAccumulation,
    dropoutSeed: o.seed + 1,
    ...(o.clipNorm ? { clipNorm: o.clipNorm } : {}),
    ...(o.lossScale ? { lossScaling: o.lossScale } : {}),
    nonFiniteUpdate: o.onNonFinite === "skip" ? ("skip" as const) : ("apply" as const),
    ...(o.loops?.layers ? { layerLoop: o.loops.layers } : {}),
  };
  // One process, or several whose step is one program (XLA's collectives): one compiled program per
  // call. Several with MPI: gradient and update programs with MPI between.
  const crossProcess = group?.collectives === "mpi" ? new CrossProcessSteps(strategy, group, stepOptions) : undefined;
  const stepFn = crossProcess
    ? undefined
    : strategy.compile(makeMultiStep(makeTrainStep(stepOptions), o.loops?.steps ?? "unrolled"), {
        name: "train_step",
        donateArgs: [0],
      });
  const runSteps: RunSteps = async (carried, batches, firstStep, budgetFractions) =>
    crossProcess
      ? await crossProcess.run(
          carried,
          batches.map((g) => groupInputs(strategy, [g])),
          firstStep,
        )
      : stepFn!(
          carried,
          groupInputs(strategy, batches, budgetFractions),
          onEachReplica(strategy, (d) => k.array(new Int32Array([firstStep]), { shape: [], device: d })),
        );
  const evalFn = strategy.compile(
    makeEvalStep({
      objective: evalObjective,
      computeDtype: o.policy.computeDtype,
      ...(o.loops?.layers ? { layerLoop: o.loops.layers } : {}),
    }),
    { name: "eval_step" },
  );
  return { runSteps, compiles: () => (crossProcess ?? stepFn!).metrics.compiles, evalFn };
}
