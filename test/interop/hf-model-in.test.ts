// Model directories that Python transformers wrote, loaded by Kiln: save_pretrained of random
// RobertaForMaskedLM/BertForMaskedLM (one file and sharded) give transformers' logits; the old
// pytorch_model.bin is refused with the way out; a real pretrained encoder nobody here made
// (sentence-transformers/all-MiniLM-L6-v2: a BertModel, no masked-LM head) gives transformers' last hidden
// states; and `kiln train --init-from` fine-tunes from such a directory. One Python process
// (test/python/hf_save_models.py) writes the directories and transformers' outputs.
import test from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadModel } from "../../src/models/index.js";
import { readSafetensors, type NamedTensor } from "../../src/models/safetensors.js";
import { loadTokenizer } from "../../src/text/index.js";
import { writeSotuCorpus } from "../../src/data/sotu.js";
import { pythonSkip, runPython } from "../helpers/python.js";
import {
  kiln,
  kilnRun,
  kilnHidden,
  kilnLogits,
  maxAbsDiff,
  padBatch,
  sotuSentences,
  writeBatch,
  type PaddedBatch,
} from "../helpers/hf-interop.js";
import { tempDir } from "../helpers/temp-dir.js";

const TOLERANCE = 1e-4;
const MAX_LENGTH = 32;

interface Report {
  minilm_dir: string;
  minilm_class: string;
  minilm_loading_info: Record<string, string[]>;
  roberta_shards: string[];
  bf16_dtypes: string[];
  configs: Record<string, Record<string, unknown>>;
}

const root = tempDir("kiln-hf-in-");
const hf = join(root, "hf");
const tokDir = join(root, "tokenizer");
const shards = join(root, "shards", "train");

let report: Report | undefined;
let setupError: unknown;
let batch: PaddedBatch | undefined;
let minilmSentences: string[] = [];

if (!pythonSkip) {
  try {
    const corpus = join(root, "sotu.txt");
    writeSotuCorpus(corpus, { first: 6 });
    kiln("tokenizer", "train", "--input", corpus, "--vocab-size", "600", "--out", tokDir, "--model-max-length", String(MAX_LENGTH));
    kiln(
      "data",
      "prepare",
      "--tokenizer",
      tokDir,
      "--input",
      corpus,
      "--out",
      join(root, "shards"),
      "--max-length",
      String(MAX_LENGTH),
      "--quiet",
    );
    const tokenizer = await loadTokenizer(tokDir);
    const lines = readFileSync(corpus, "utf8").split("\n").filter(Boolean);
    const sentences = sotuSentences(lines, (s) => tokenizer.encode(s), 5, 8, MAX_LENGTH);
    batch = padBatch(
      sentences.map((s) => tokenizer.encode(s)),
      tokenizer.padId,
    );
    // Different speeches' sentences for MiniLM, one long enough to pad the others a good deal.
    minilmSentences = [...lines.slice(3).map((l) => l.split(/(?<=[.!?])\s+/)[2]!), lines[0]!.slice(0, 600)];
    const batchFile = join(root, "batch.safetensors");
    await writeBatch(batchFile, batch);
    mkdirSync(hf);
    report = runPython<Report>("hf_save_models.py", [], {
      input: JSON.stringify({
        out: hf,
        vocab_size: tokenizer.vocabSize,
        pad_id: tokenizer.padId,
        bos_id: tokenizer.clsId,
        eos_id: tokenizer.sepId,
        max_length: MAX_LENGTH,
        batch: batchFile,
        minilm_sentences: minilmSentences,
      }),
    });
  } catch (e) {
    setupError = e;
  }
}

function seen(): Report {
  if (setupError) throw setupError;
  return report!;
}

async function hfTensors(name: string): Promise<Record<string, NamedTensor>> {
  return (await readSafetensors(join(hf, `${name}.hf.safetensors`))).tensors;
}

for (const [name, reference] of [
  ["roberta", "roberta"],
  ["bert", "bert"],
  ["roberta-sharded", "roberta"],
  ["bert-bf16", "bert-bf16"],
] as const) {
  test(`${name}: Kiln loads transformers' save_pretrained and gives its logits within ${TOLERANCE}`, { skip: pythonSkip }, async (t) => {
    const r = seen();
    if (name === "roberta-sharded") assert.ok(r.roberta_shards.length > 1, `sharded into ${r.roberta_shards.join(", ")}`);
    if (name === "bert-bf16") assert.deepEqual(r.bf16_dtypes, ["BF16"]);
    const loaded = await loadModel(join(hf, name), { task: "mlm" });
    assert.equal(loaded.mlmHead, "loaded");
    assert.deepEqual(loaded.notices, [], "every tensor maps onto a parameter");
    const ours = await kilnLogits(loaded.model, loaded.params, batch!);
    const theirs = (await hfTensors(reference)).logits!;
    assert.deepEqual(theirs.shape, [...batch!.shape, loaded.model.config.vocab_size]);
    const diff = maxAbsDiff(ours, theirs.data as Float32Array);
    t.diagnostic(`${name}: max |logit difference| ${diff.toExponential(2)} over ${ours.length} logits`);
    assert.ok(diff < TOLERANCE, `max |logit difference| ${diff}`);
  });
}

test("a pytorch_model.bin directory is refused with the way to re-save it as safetensors", { skip: pythonSkip }, async () => {
  seen();
  await assert.rejects(
    loadModel(join(hf, "bert-pickle"), { task: "mlm" }),
    new RegExp(
      "bert-pickle holds pytorch_model\\.bin \\(a PyTorch pickle\\) but no model\\.safetensors: " +
        "Kiln reads safetensors only\\. Re-save it .*save_pretrained",
    ),
  );
});

test(
  `all-MiniLM-L6-v2 (a pretrained BertModel): Kiln's BERT encoder gives transformers' last hidden states within ${TOLERANCE}`,
  { skip: pythonSkip },
  async (t) => {
    const r = seen();
    assert.equal(r.minilm_class, "BertModel");
    assert.deepEqual(r.minilm_loading_info.missing_keys, []);
    // Without the head, predictions are impossible: loading for them is an error, loading for the encoder is not.
    await assert.rejects(
      loadModel(r.minilm_dir, { task: "mlm" }),
      /no masked-LM head \(cls\.predictions\..* are missing\): an encoder-only checkpoint/,
    );
    const loaded = await loadModel(r.minilm_dir, { task: "mlm", missingHead: "init" });
    assert.equal(loaded.mlmHead, "initialized");
    assert.equal(loaded.notices.length, 2, loaded.notices.join("\n"));
    assert.match(
      loaded.notices[0]!,
      /no masked-LM head \(an encoder-only checkpoint, e\.g\. BertModel\): the encoder is loaded and the head .* is freshly initialized/,
    );
    assert.match(loaded.notices[1]!, /2 tensor\(s\) unused by BertForMaskedLM: pooler\.dense\.bias, pooler\.dense\.weight/);
    // Kiln's tokenizer is Unigram only: the WordPiece ids come from transformers' tokenizer.
    const h = await hfTensors("minilm");
    const [rows, len] = h.input_ids!.shape as [number, number];
    assert.ok(
      (h.token_type_ids!.data as Int32Array).every((x) => x === 0),
      "single sentences: token type 0 throughout",
    );
    const mask = h.attention_mask!.data as Int32Array;
    assert.ok(mask.includes(0), "the batch is padded");
    const ours = await kilnHidden(loaded.model, loaded.params, {
      inputIds: h.input_ids!.data as Int32Array,
      attentionMask: mask,
      shape: [rows, len],
    });
    const diff = maxAbsDiff(ours, h.hidden!.data as Float32Array);
    t.diagnostic(`all-MiniLM-L6-v2: max |hidden-state difference| ${diff.toExponential(2)} over ${rows} sentences × ${len} tokens × 384`);
    assert.ok(diff < TOLERANCE, `max |hidden-state difference| ${diff}`);
  },
);

const trainArgs = (out: string, ...more: string[]) => [
  "train",
  "--tokenizer",
  tokDir,
  "--train-data",
  shards,
  "--output-dir",
  out,
  "--per-replica-batch-size",
  "4",
  "--accelerator",
  "cpu",
  "--log-every",
  "1",
  "--quiet",
  ...more,
];

test(
  "kiln train --init-from continues from transformers' weights (a fresh optimizer), " +
    "and saves what transformers wrote when nothing is learned",
  { skip: pythonSkip },
  async () => {
    seen();
    for (const name of ["roberta", "bert"]) {
      // At learning rate 0 the model must come out exactly as it went in: the run started from the file.
      const still = join(root, `${name}-lr0`);
      kiln(...trainArgs(still, "--init-from", join(hf, name), "--max-steps", "2", "--learning-rate", "0"));
      const before = (await readSafetensors(join(hf, name, "model.safetensors"))).tensors;
      const after = (await readSafetensors(join(still, "model.safetensors"))).tensors;
      assert.deepEqual(Object.keys(after).sort(), Object.keys(before).sort());
      for (const [n, t] of Object.entries(before)) assert.deepEqual(after[n]!.data, t.data, `${name}: ${n}`);
      const optimizer = (await readSafetensors(join(still, "checkpoint-2", "optimizer.safetensors"))).tensors;
      assert.equal((optimizer.step!.data as Float32Array)[0], 2, "the optimizer started fresh");
      // Fine-tuning moves the weights; its first step sees the same weights and batch as the run above.
      const tuned = join(root, `${name}-tuned`);
      const result = JSON.parse(kiln(...trainArgs(tuned, "--init-from", join(hf, name), "--max-steps", "3", "--learning-rate", "1e-3")));
      assert.equal(result.steps, 3);
      assert.ok(Number.isFinite(result.train_loss));
      const first = JSON.parse(readFileSync(join(still, "metrics.jsonl"), "utf8").split("\n")[0]!);
      const firstTuned = JSON.parse(readFileSync(join(tuned, "metrics.jsonl"), "utf8").split("\n")[0]!);
      assert.equal(firstTuned.loss, first.loss, "step 1 sees the same weights and batch");
      const moved = (await readSafetensors(join(tuned, "model.safetensors"))).tensors;
      const emb = name === "roberta" ? "roberta.embeddings.word_embeddings.weight" : "bert.embeddings.word_embeddings.weight";
      assert.ok(maxAbsDiff(moved[emb]!.data as Float32Array, before[emb]!.data as Float32Array) > 0, "training changed the weights");
    }
  },
);

test(
  "kiln train --init-from an encoder-only RobertaModel: the head is initialized and the notice says so",
  { skip: pythonSkip },
  async () => {
    seen();
    const out = join(root, "from-encoder");
    const r = kilnRun(...trainArgs(out, "--init-from", join(hf, "roberta-encoder"), "--max-steps", "2", "--learning-rate", "0"));
    assert.equal(r.code, 0, r.err);
    assert.match(
      r.err,
      new RegExp(
        "kiln train: .*roberta-encoder\\/model\\.safetensors: no masked-LM head \\(an encoder-only checkpoint, e\\.g\\. RobertaModel\\): " +
          "the encoder is loaded and the head \\(lm_head\\..*\\) is freshly initialized",
      ),
    );
    const encoder = (await readSafetensors(join(hf, "roberta-encoder", "model.safetensors"))).tensors;
    const saved = (await readSafetensors(join(out, "model.safetensors"))).tensors;
    for (const [n, t] of Object.entries(encoder)) assert.deepEqual(saved[`roberta.${n}`]!.data, t.data, n);
    assert.ok(saved["lm_head.dense.weight"], "the saved model has its head");
    assert.deepEqual(JSON.parse(readFileSync(join(out, "config.json"), "utf8")).architectures, ["RobertaForMaskedLM"]);
  },
);

test(
  "kiln train --init-from: a model and tokenizer that do not fit " +
    "(MiniLM's WordPiece vocabulary, another tokenizer, another pad id) and pickles are clear errors",
  { skip: pythonSkip },
  () => {
    const r = seen();
    const out = join(root, "refused");
    let f = kilnRun(...trainArgs(out, "--init-from", r.minilm_dir, "--max-steps", "1"));
    assert.equal(f.code, 2);
    assert.match(
      f.err,
      new RegExp(
        "--init-from \".*model\": the model's vocab_size 30522 differs from the tokenizer's 600 \\(.*tokenizer\\)\\. " +
          "Pass the tokenizer the model was trained with",
      ),
    );
    f = kilnRun(...trainArgs(out, "--init-from", join(hf, "roberta"), "--preset", "mlm-small"));
    assert.match(f.err, /give exactly one of --preset and --model-config, or --init-from alone/);
    f = kilnRun(...trainArgs(out, "--init-from", join(hf, "bert-pickle"), "--max-steps", "1"));
    assert.match(f.err, /holds pytorch_model\.bin .* Kiln reads safetensors only/);
    // A model directory with its own tokenizer: --tokenizer must be that one, id for id.
    const other = join(root, "other-tokenizer");
    kiln("tokenizer", "train", "--input", otherCorpus(), "--vocab-size", "600", "--out", other);
    const withTokenizer = join(root, "roberta-with-tokenizer");
    cpSync(join(hf, "roberta"), withTokenizer, { recursive: true });
    for (const file of ["tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"])
      cpSync(join(other, file), join(withTokenizer, file));
    f = kilnRun(...trainArgs(out, "--init-from", withTokenizer, "--max-steps", "1"));
    assert.match(
      f.err,
      new RegExp(
        '--tokenizer "[^"]*": is not the tokenizer of .*roberta-with-tokenizer: ' +
          'id \\d+ is "[^"]*" there but "[^"]*" in .*roberta-with-tokenizer\\/tokenizer\\.json\\. ' +
          "Pass the tokenizer in .*roberta-with-tokenizer",
      ),
    );
    const config = JSON.parse(readFileSync(join(hf, "bert", "config.json"), "utf8"));
    const wrongPad = join(root, "bert-wrong-pad");
    cpSync(join(hf, "bert"), wrongPad, { recursive: true });
    writeFileSync(join(wrongPad, "config.json"), JSON.stringify({ ...config, pad_token_id: 0 }));
    f = kilnRun(...trainArgs(out, "--init-from", wrongPad, "--max-steps", "1"));
    assert.match(f.err, /bert-wrong-pad": the model's pad_token_id 0 differs from the tokenizer's pad id 3/);
  },
);

/** Later speeches than the ones the test tokenizer learned from. */
function otherCorpus(): string {
  const path = join(root, "later.txt");
  const all = join(root, "all.txt");
  writeSotuCorpus(all, { first: 12 });
  writeFileSync(path, readFileSync(all, "utf8").split("\n").slice(6).join("\n"));
  return path;
}
