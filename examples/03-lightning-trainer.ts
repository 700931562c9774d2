// The Trainer the Lightning way: say which accelerator, how many devices and what precision, and
// Trainer picks the devices and the strategy (data parallel over several devices).
//
//   node dist/examples/03-lightning-trainer.js [TOKENIZER_DIR] [SHARDS_DIR] [OUT_DIR]
//
// Defaults: the tokenizer and shards example 01 wrote (runs/examples/pipeline), output under
// runs/examples/lightning. KILN_EXAMPLE_ACCELERATOR=cpu|gpu|tpu|auto (default auto: a GPU/TPU when a
// PJRT plugin is found, else the CPU), KILN_EXAMPLE_STEPS=N (default 100), KILN_EXAMPLE_SIZE=tiny.
import { join } from "node:path";
import { Trainer, RobertaForMaskedLM, loadTokenizer, openDataset, type Accelerator } from "@kiln-ml/kiln";
import { LearningRateMonitor } from "@kiln-ml/kiln/train";

const pipeline = join("runs", "examples", "pipeline");
const tokenizerDir = process.argv[2] ?? join(pipeline, "tokenizer");
const shards = process.argv[3] ?? join(pipeline, "shards");
const out = process.argv[4] ?? join("runs", "examples", "lightning");
const steps = Number(process.env.KILN_EXAMPLE_STEPS ?? 100);
const tiny = process.env.KILN_EXAMPLE_SIZE === "tiny";
const maxLength = tiny ? 32 : 128;

const trainer = new Trainer({
  accelerator: (process.env.KILN_EXAMPLE_ACCELERATOR ?? "auto") as Accelerator,
  devices: 2,
  precision: "bf16-mixed",
  maxSteps: steps,
  evalEvery: Math.max(1, steps / 2),
  outputDir: out,
  overwrite: true,
  callbacks: [new LearningRateMonitor()],
});
console.log(`${trainer.strategy.name} on ${trainer.strategy.devices.map((d) => d.id).join(", ")}, precision ${trainer.policy.name}`);

const tokenizer = await loadTokenizer(tokenizerDir);
const batchSize = (tiny ? 2 : 8) * trainer.strategy.numReplicas; // the global batch
const train = await openDataset({ files: join(shards, "train"), maxLength, batchSize, shuffle: true, seed: 42, epochs: Infinity });
const evalData = await openDataset({ files: join(shards, "validation"), maxLength, batchSize, shuffle: false });
const result = await trainer.fit({
  model: RobertaForMaskedLM.fromPreset(tiny ? "mlm-tiny" : "mlm-small", tokenizer, maxLength),
  train,
  eval: evalData,
  tokenizerDir,
  optimizer: { learningRate: 7e-4, weightDecay: 0.01 },
  masking: { maskTokenId: tokenizer.maskId, vocabSize: tokenizer.vocabSize, specialIds: [...tokenizer.specialIds] },
});
console.log(JSON.stringify({ steps: result.globalStep, eval_loss: result.evalHistory.at(-1)?.eval_loss, model_dir: out }));
