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

/**
 * The compiled programs of each batch length, made on first use: token shards have one length, and
 * length-bucketed classification data a few (its padded lengths, known up front), so the cache is
 * bounded by the data, as XLA users bucket to bound recompiles. A length outside the list is refused.
 */
class ProgramsByLength<P> {
  private readonly made = new Map<number, P>();
  constructor(
    private readonly what: string,
    private readonly lengths: readonly number[],
    private readonly make: (length: number) => P,
  ) {}
  for(length: number): P {
    let p = this.made.get(length);
    if (!p) {
      if (!this.lengths.includes(length))
        throw new Error(`${this.what}: a batch of length ${length}, but the data's batches have lengths ${this.lengths.join(", ")}`);
      this.made.set(length, (p = this.make(length)));
    }
    return p;
  }
  get all(): P[] {
    return [...this.made.values()];
  }
}

/** The batch lengths the compiled steps are made for: the training data's, and the evaluation data's. */
export interface StepLengths {
  train: readonly number[];
  eval: readonly number[];
}

export function compileSteps(
  strategy: Strategy,
  group: ProcessGroup | undefined,
  o: StepSettings,
  objective: TrainingObjective,
  evalObjective: TrainingObjective,
  optimizer: Optimizer<any>,
  lengths: StepLengths,
): { runSteps: RunSteps; compiles: () => number; evalFn: EvalFn; programs: () => { train: number; eval: number } } {
  const stepOptions = {
    objective,
    optimizer,
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
  const mpi = group?.collectives === "mpi";
  const train = new ProgramsByLength("the training step", lengths.train, () =>
    mpi
      ? { crossProcess: new CrossProcessSteps(strategy, group, stepOptions) }
      : {
          stepFn: strategy.compile(makeMultiStep(makeTrainStep(stepOptions), o.loops?.steps ?? "unrolled"), {
            name: "train_step",
            donateArgs: [0],
          }),
        },
  );
  const runSteps: RunSteps = async (carried, batches, firstStep) => {
    const { crossProcess, stepFn } = train.for(batches[0]!.batch.shape[1]);
    return crossProcess
      ? await crossProcess.run(
          carried,
          batches.map((g) => groupInputs(strategy, [g])),
          firstStep,
        )
      : stepFn!(
          carried,
          groupInputs(strategy, batches),
          onEachReplica(strategy, (d) => k.array(new Int32Array([firstStep]), { shape: [], device: d })),
        );
  };
  const evalStep = makeEvalStep({
    objective: evalObjective,
    computeDtype: o.policy.computeDtype,
    ...(o.loops?.layers ? { layerLoop: o.loops.layers } : {}),
  });
  const evals = new ProgramsByLength("the evaluation step", lengths.eval, () => strategy.compile(evalStep, { name: "eval_step" }));
  const evalFn: EvalFn = (params, inputs, length) => evals.for(length)(params, inputs);
  return {
    runSteps,
    compiles: () => train.all.reduce((n, p) => n + (p.crossProcess ?? p.stepFn!).metrics.compiles, 0),
    evalFn,
    programs: () => ({ train: train.all.length, eval: evals.all.length }),
  };
}
