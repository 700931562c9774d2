// The compiled training program of a model preset, traced from shapes alone (no parameter memory):
// what the compile benchmark lowers and measures, and what tests count equations in.
import * as k from "../core/index.js";
import { traceToProgram } from "../core/autodiff.js";
import { createMaskedLM, presetConfig, type MlmConfig } from "../models/index.js";
import type { LayerLoop } from "../models/transformer-encoder.js";
import { AdamW } from "../optim/adamw.js";
import { makeMultiStep, makeTrainStep, type StackedStepInputs, type TrainState } from "./train-step.js";
import { maskedLmObjective } from "./objectives/mlm.js";

export interface StepProgramOptions {
  /** A preset name, or a config. */
  model: string | MlmConfig;
  vocab?: number;
  batch: number;
  seq: number;
  /** Steps per execution (K). */
  steps: number;
  loops?: { steps?: "unrolled" | "scan"; layers?: LayerLoop };
}

/** A stand-in that tracing reads only the shape and dtype of. */
function standIn(s: { shape: readonly number[]; dtype: k.DType }): k.Array {
  return { shape: s.shape, dtype: s.dtype, weak: false } as unknown as k.Array;
}

/** The K-step training program (masking, forward, backward, AdamW; dropout on) of `o.model`. */
export function trainStepsProgram(o: StepProgramOptions): k.Program {
  const config =
    typeof o.model === "string"
      ? (presetConfig(o.model, { vocabSize: o.vocab ?? 32000, padId: 3, clsId: 0, sepId: 1 }, o.seq) as MlmConfig)
      : o.model;
  const model = createMaskedLM(config);
  const optimizer = new AdamW({ learningRate: 1e-4, weightDecay: 0.01 });
  const params = k.evalShape((key: k.Array) => model.init(key), k.randomKey(0));
  const opt = k.evalShape((key: k.Array) => optimizer.init(model.init(key)), k.randomKey(0));
  const state: TrainState = k.treeMap(standIn, { params, opt }) as TrainState;
  const K = o.steps,
    shape = [K, o.batch, o.seq];
  const inputs: StackedStepInputs = {
    inputIds: standIn({ shape, dtype: "i32" }),
    attentionMask: standIn({ shape, dtype: "i32" }),
    exampleOffset: standIn({ shape: [K], dtype: "i32" }),
    epoch: standIn({ shape: [K], dtype: "i32" }),
  };
  const fn = makeMultiStep(
    makeTrainStep({
      objective: maskedLmObjective({
        model,
        masking: { maskTokenId: 4, vocabSize: config.vocab_size, specialIds: [0, 1, 2, 3, 4], seed: 2 },
      }),
      optimizer,
      dropoutSeed: 1,
      ...(o.loops?.layers ? { layerLoop: o.loops.layers } : {}),
    }),
    o.loops?.steps ?? "unrolled",
  );
  const args = [state, inputs, standIn({ shape: [], dtype: "i32" })];
  const { leaves, treedef } = k.flatten(args, (x) => typeof x === "object" && x !== null && "shape" in x && "dtype" in x);
  return traceToProgram("train_steps", fn, leaves as k.Array[], treedef).program;
}

/** Equations in a program, counting those of loop bodies (recursively). */
export function countEquations(p: k.Program): number {
  return [...k.allEquations(p)].length;
}
