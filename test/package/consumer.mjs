// A user's project: imports every documented name from the installed package and its subpaths, then
// trains a tiny model for a few steps and runs fill-mask, all through the public API.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const documented = JSON.parse(process.argv[2]);
const wrong = [];
for (const [spec, names] of Object.entries(documented)) {
  const m = await import(spec);
  for (const name of names) {
    // Constants are written in capitals; everything else documented as a value is a class or a function.
    const kind = /^[A-Z][A-Z0-9_]+$/.test(name) ? "object" : "function";
    if (typeof m[name] !== kind) wrong.push(`${spec}: ${name} should be a ${kind}, got ${typeof m[name]}`);
  }
}
assert.deepEqual(wrong, []);

const kiln = await import("kiln");
const { Trainer, RobertaForMaskedLM, FillMaskPipeline, trainUnigram, saveTokenizer, loadTokenizer, prepareDataset, openDataset } = kiln;
const dir = process.argv[3];
mkdirSync(dir, { recursive: true });
const words = ["people", "nation", "congress", "freedom", "law", "future", "union", "state", "work", "peace"];
const lines = Array.from(
  { length: 300 },
  (_, i) => `The ${words[i % 10]} of the ${words[(i * 7 + 3) % 10]} will ${words[(i * 3 + 1) % 10]} our ${words[(i * 9 + 5) % 10]}.`,
);
const corpus = join(dir, "corpus.txt");
writeFileSync(corpus, lines.join("\n") + "\n");
await saveTokenizer(await trainUnigram(lines, { vocabSize: 80 }), join(dir, "tok"));
const tokenizer = await loadTokenizer(join(dir, "tok"));
await prepareDataset({
  tokenizer: join(dir, "tok"),
  inputs: [corpus],
  out: join(dir, "shards"),
  maxLength: 16,
  validationFraction: 0.1,
  seed: 0,
});
const train = await openDataset({ files: join(dir, "shards", "train"), maxLength: 16, batchSize: 4, shuffle: true, epochs: Infinity });
const model = RobertaForMaskedLM.fromPreset("mlm-tiny", tokenizer, 16);
const result = await new Trainer({ outputDir: join(dir, "model"), maxSteps: 3, progress: false }).fit({
  model,
  train,
  tokenizerDir: join(dir, "tok"),
  optimizer: { learningRate: 1e-3 },
  masking: { maskTokenId: tokenizer.maskId, vocabSize: tokenizer.vocabSize, specialIds: [...tokenizer.specialIds] },
});
assert.equal(result.globalStep, 3);
const guesses = await new FillMaskPipeline(model, result.params, tokenizer).call("The [MASK] of the union.", { topK: 2 });
assert.equal(guesses.length, 2);
console.log(JSON.stringify({ steps: result.globalStep, loss: result.history.at(-1).loss, guess: guesses[0].sequence }));
