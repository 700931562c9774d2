// The reference pipeline end to end through the library: a Unigram tokenizer → TFRecord shards →
// Trainer.fit (masked-LM training with evaluation) → fill-mask.
//
//   node dist/examples/01-pipeline.js [CORPUS.txt] [OUT_DIR]
//
// CORPUS.txt holds one document a line (default: the State of the Union speeches); everything goes
// under OUT_DIR (default runs/examples/pipeline). KILN_EXAMPLE_STEPS=N trains N steps (default 300);
// KILN_EXAMPLE_SIZE=tiny makes the vocabulary and the model tiny (mlm-tiny), for a quick check.
import { join } from "node:path";
import { existsSync } from "node:fs";
import {
  FillMaskPipeline,
  RobertaForMaskedLM,
  Trainer,
  loadTokenizer,
  openDataset,
  prepareDataset,
  readTextLines,
  saveTokenizer,
  trainUnigram,
} from "@kiln-ml/kiln";
import { writeSotuCorpus } from "@kiln-ml/kiln/data";

const out = process.argv[3] ?? join("runs", "examples", "pipeline");
const steps = Number(process.env.KILN_EXAMPLE_STEPS ?? 300);
const tiny = process.env.KILN_EXAMPLE_SIZE === "tiny";
const maxLength = tiny ? 32 : 128;
let corpus = process.argv[2];
if (!corpus) {
  corpus = join(out, "sotu.txt");
  if (!existsSync(corpus)) writeSotuCorpus(corpus);
}

// 1. A Unigram tokenizer, saved as Hugging Face tokenizer.json.
const tokenizerDir = join(out, "tokenizer");
const trained = await trainUnigram(readTextLines([corpus]), { vocabSize: tiny ? 300 : 8192 });
await saveTokenizer(trained, tokenizerDir, { modelMaxLength: maxLength });
const tokenizer = await loadTokenizer(tokenizerDir);

// 2. Sharded TFRecord files of fixed-length token rows, with a validation split.
const shards = join(out, "shards");
await prepareDataset({ tokenizer: tokenizerDir, inputs: [corpus], out: shards, maxLength, validationFraction: 0.05, seed: 0 });

// 3. Training: a streaming, shuffled, repeating training set and an in-order evaluation set.
const batchSize = tiny ? 4 : 16;
const train = await openDataset({ files: join(shards, "train"), maxLength, batchSize, shuffle: true, seed: 42, epochs: Infinity });
const evalData = await openDataset({ files: join(shards, "validation"), maxLength, batchSize, shuffle: false });
const model = RobertaForMaskedLM.fromPreset(tiny ? "mlm-tiny" : "mlm-small", tokenizer, maxLength);
const trainer = new Trainer({ outputDir: join(out, "model"), maxSteps: steps, evalEvery: Math.max(1, steps / 2), overwrite: true });
const result = await trainer.fit({
  model,
  train,
  eval: evalData,
  tokenizerDir,
  optimizer: { learningRate: 7e-4, weightDecay: 0.01 },
  masking: { maskTokenId: tokenizer.maskId, vocabSize: tokenizer.vocabSize, specialIds: [...tokenizer.specialIds] },
});
console.log(`trained ${result.globalStep} steps; eval loss ${result.evalHistory.at(-1)?.eval_loss?.toFixed(3)}`);

// 4. Fill-mask with the trained parameters (or later: loadModel(join(out, "model"))).
const fillMask = new FillMaskPipeline(model, result.params, tokenizer);
const guesses = await fillMask.call("The [MASK] of the United States.", { topK: 3 }); // FillMaskResult[]
for (const g of guesses) console.log(`${g.score.toFixed(3)}  ${g.sequence}`);
