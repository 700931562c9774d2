// A custom training loop over replicas, the way TF2's TPUStrategy walkthrough writes it: a per-replica
// step function, `strategy.run` inside a compiled `train_step` (@tf.function), `strategy.reduce("mean", …)`
// of the per-replica losses, and a distributed dataset that hands each replica its share of the batch.
//
//   node dist/examples/02-custom-loop.js [TOKENIZER_DIR] [SHARDS_DIR]
//
// Defaults: the tokenizer and training shards example 01 wrote (runs/examples/pipeline). Two replicas
// (virtual CPU devices; on a machine with GPUs, `accelerator: "gpu"`). KILN_EXAMPLE_STEPS=N (default 100);
// KILN_EXAMPLE_SIZE=tiny for the mlm-tiny model.
import { join } from "node:path";
import * as k from "@kiln-ml/kiln/core";
import {
  AdamW,
  DataParallel,
  RobertaForMaskedLM,
  allReduceMean,
  linearWarmupDecay,
  loadTokenizer,
  openDataset,
  selectDevices,
} from "@kiln-ml/kiln";
import { maskTokensTraced } from "@kiln-ml/kiln/data";
import { maskedLmLoss, type RobertaParams } from "@kiln-ml/kiln/models";
import type { AdamWState } from "@kiln-ml/kiln/optim";

const pipeline = join("runs", "examples", "pipeline");
const tokenizerDir = process.argv[2] ?? join(pipeline, "tokenizer");
const shards = process.argv[3] ?? join(pipeline, "shards", "train");
const steps = Number(process.env.KILN_EXAMPLE_STEPS ?? 100);
const tiny = process.env.KILN_EXAMPLE_SIZE === "tiny";

const strategy = new DataParallel(selectDevices({ accelerator: "cpu", devices: 2 }));
const tokenizer = await loadTokenizer(tokenizerDir);
const maxLength = tiny ? 32 : 128;
const perReplicaBatch = tiny ? 2 : 8;
// The dataset yields global batches; distributeDataset splits each across the replicas.
const dataset = await openDataset({
  files: shards,
  maxLength,
  batchSize: perReplicaBatch * strategy.numReplicas,
  shuffle: true,
  seed: 0,
  epochs: Infinity,
});

const model = RobertaForMaskedLM.fromPreset(tiny ? "mlm-tiny" : "mlm-small", tokenizer, maxLength);
const optimizer = new AdamW({
  learningRate: linearWarmupDecay({ peak: 7e-4, warmupSteps: Math.ceil(steps / 10), totalSteps: steps }),
  weightDecay: 0.01,
});
const masking = { maskTokenId: tokenizer.maskId, vocabSize: tokenizer.vocabSize, specialIds: [...tokenizer.specialIds], seed: 0 };

// The model's own parameter type: gradients and the optimizer's update keep it.
interface State {
  params: RobertaParams;
  opt: AdamWState;
}

// `_step_function`: runs on every replica, on its share of the batch. Masking, forward, loss, backward,
// the gradients averaged over replicas (all-reduce), and the AdamW update: all one compiled program.
function replicaStep(state: State, inputIds: k.Array, attentionMask: k.Array, exampleOffset: k.Array) {
  const masked = maskTokensTraced(inputIds, attentionMask, 0, exampleOffset, masking);
  const loss = (params: RobertaParams) =>
    maskedLmLoss(model, params, model.hidden(params, masked.inputIds, attentionMask), masked.labels).loss;
  const [value, grads] = k.valueAndGrad(loss)(state.params);
  const meanGrads = k.treeMap((g: k.Array) => allReduceMean(g, strategy.numReplicas), grads);
  const { params, state: opt } = optimizer.update(meanGrads, state.opt, state.params);
  return { state: { params, opt }, loss: value };
}

// `@tf.function def train_step`: strategy.run compiles replicaStep once (per input signature) and runs
// it on every replica; the mean of the replicas' losses is what the step reports.
function trainStep(state: State, batch: { inputIds: unknown; attentionMask: unknown; exampleOffset: unknown }) {
  const out = strategy.run(replicaStep, state, batch.inputIds, batch.attentionMask, batch.exampleOffset);
  return { state: strategy.carry(out.state) as State, loss: strategy.reduce("mean", out.loss) };
}

const params = model.init(k.randomKey(0));
let state = strategy.replicate<State>({ params, opt: optimizer.init(params) });
let step = 0;
for await (const batch of strategy.distributeDataset(dataset)) {
  const out = trainStep(state, batch);
  state = out.state;
  step++;
  if (step % 10 === 0 || step === 1 || step === steps) console.log(`step ${step}: loss ${(await out.loss.item()).toFixed(4)}`);
  if (step >= steps) break;
}
// One compile, then cache hits: the step is traced and compiled once, as tf.function does.
console.log(k.metricsReport().split("\n")[1]);
