// Fine-tuning from a Hugging Face checkpoint directory: one that transformers' save_pretrained wrote
// (config.json, model.safetensors, the tokenizer files) or one Kiln wrote. The data is prepared with
// the model's own tokenizer, the weights come from the checkpoint, the optimizer starts fresh, and the
// result is again a directory transformers loads.
//
//   node dist/examples/04-fine-tune.js MODEL_DIR CORPUS.txt [OUT_DIR]
//
// MODEL_DIR needs a tokenizer.json Kiln reads (a Unigram one, e.g. from `kiln tokenizer train` or
// example 01). Output under OUT_DIR (default runs/examples/fine-tune). KILN_EXAMPLE_STEPS=N (default 100).
import { join } from "node:path";
import { FillMaskPipeline, Trainer, loadModel, loadTokenizer, openDataset, prepareDataset } from "@kiln-ml/kiln";
import { maxSequenceLength } from "@kiln-ml/kiln/models";

const [modelDir, corpus] = process.argv.slice(2);
if (!modelDir || !corpus) throw new Error("usage: node dist/examples/04-fine-tune.js MODEL_DIR CORPUS.txt [OUT_DIR]");
const out = process.argv[4] ?? join("runs", "examples", "fine-tune");
const steps = Number(process.env.KILN_EXAMPLE_STEPS ?? 100);

// The checkpoint: weights with transformers' names; an encoder-only one (BertModel) gets a fresh head.
const { model, params, mlmHead, notices } = await loadModel(modelDir, { task: "mlm", missingHead: "init" });
for (const n of notices) console.log(n);
console.log(`${model.config.architectures[0]} from ${modelDir} (masked-LM head ${mlmHead})`);

// Shards made with the model's own tokenizer, no longer than its position table allows.
const tokenizer = await loadTokenizer(modelDir);
const maxLength = Math.min(128, maxSequenceLength(model.config));
const shards = join(out, "shards");
await prepareDataset({ tokenizer: modelDir, inputs: [corpus], out: shards, maxLength, validationFraction: 0.05, seed: 0 });
const batchSize = 4;
const train = await openDataset({ files: join(shards, "train"), maxLength, batchSize, shuffle: true, seed: 1, epochs: Infinity });
const evalData = await openDataset({ files: join(shards, "validation"), maxLength, batchSize, shuffle: false });

const trainer = new Trainer({ outputDir: join(out, "model"), maxSteps: steps, evalAtStart: true, overwrite: true });
const result = await trainer.fit({
  model,
  params, // start from the checkpoint's weights
  train,
  eval: evalData,
  tokenizerDir: modelDir,
  optimizer: { learningRate: 5e-5, weightDecay: 0.01, warmupSteps: 0 },
  masking: { maskTokenId: tokenizer.maskId, vocabSize: tokenizer.vocabSize, specialIds: [...tokenizer.specialIds] },
});
const [before, after] = [result.evalHistory[0]?.eval_loss, result.evalHistory.at(-1)?.eval_loss];
console.log(`eval loss ${before?.toFixed(3)} → ${after?.toFixed(3)} after ${result.globalStep} steps; model in ${join(out, "model")}`);

const fillMask = new FillMaskPipeline(model, result.params, tokenizer);
const guesses = await fillMask.call("The [MASK] of the United States.", { topK: 3 }); // FillMaskResult[]
for (const g of guesses) console.log(`${g.score.toFixed(3)}  ${g.sequence}`);
