// Sequence classifiers both ways between Kiln and the pinned transformers: random
// Bert/Roberta/Llama/GPT2ForSequenceClassification that save_pretrained wrote load into Kiln with every
// parameter and give transformers' logits; classifiers Kiln made and saved load into
// AutoModelForSequenceClassification with no missing keys, give Kiln's logits, and transformers'
// pipeline("text-classification") gives the labels and scores of Kiln's pipeline. Token ids are compared
// directly (Kiln's own tokenizer beside each model), so what is held equal is the models.
import test from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import * as k from "../../src/core/index.js";
import { loadModel, presetConfig, saveModel, classifierConfig, createSequenceClassifier } from "../../src/models/index.js";
import type { SequenceClassifier } from "../../src/models/index.js";
import type { Params } from "../../src/models/language-model.js";
import { readSafetensors, writeSafetensors } from "../../src/models/safetensors.js";
import { loadTokenizer, type Tokenizer } from "../../src/text/index.js";
import { pipeline } from "../../src/pipelines/index.js";
import { writeSotuCorpus } from "../../src/data/sotu.js";
import { pythonSkip, runPython } from "../helpers/python.js";
import { kiln, maxAbsDiff } from "../helpers/hf-interop.js";
import { tempDir } from "../helpers/temp-dir.js";

const TOLERANCE = 1e-4;
const MAX_LENGTH = 64;
const FAMILIES = ["bert", "roberta", "llama", "gpt2"] as const;
type Family = (typeof FAMILIES)[number];
const LABELS = ["negative", "neutral", "positive"];
const ARCH: Record<Family, string> = {
  bert: "BertForSequenceClassification",
  roberta: "RobertaForSequenceClassification",
  llama: "LlamaForSequenceClassification",
  gpt2: "GPT2ForSequenceClassification",
};

interface Batch {
  ids: Int32Array;
  mask: Int32Array;
  types: Int32Array;
  shape: [number, number];
}

interface CheckReport {
  class: string;
  loading_info: Record<string, string[]>;
  texts: { label: string; score: number }[][];
  pairs: { label: string; score: number }[][] | null;
}

const root = tempDir("kiln-hf-cls-");
const tokDir = join(root, "tokenizer");
const hf = join(root, "hf");
let tokenizer: Tokenizer;
let batch: Batch;
let texts: string[] = [];
let pairs: [string, string][] = [];
let made: Record<Family, string[]> | undefined;
let setupError: unknown;

/** Rows of single texts and of pairs ([CLS] a [SEP] b [SEP], the second text of token type 1), right-padded. */
function makeBatch(tok: Tokenizer): Batch {
  const rows: { ids: number[]; types: number[] }[] = texts.map((t) => {
    const ids = tok.encode(t);
    return { ids, types: ids.map(() => 0) };
  });
  for (const [a, b] of pairs) {
    const first = [tok.clsId, ...tok.encode(a, { addSpecialTokens: false }), tok.sepId];
    const second = [...tok.encode(b, { addSpecialTokens: false }), tok.sepId];
    rows.push({ ids: [...first, ...second], types: [...first.map(() => 0), ...second.map(() => 1)] });
  }
  const len = Math.max(...rows.map((r) => r.ids.length));
  const ids = new Int32Array(rows.length * len).fill(tok.padId),
    mask = new Int32Array(rows.length * len),
    types = new Int32Array(rows.length * len);
  rows.forEach((r, i) => {
    ids.set(r.ids, i * len);
    types.set(r.types, i * len);
    mask.fill(1, i * len, i * len + r.ids.length);
  });
  return { ids, mask, types, shape: [rows.length, len] };
}

if (!pythonSkip) {
  try {
    const corpus = join(root, "sotu.txt");
    writeSotuCorpus(corpus, { first: 4 });
    kiln("tokenizer", "train", "--input", corpus, "--vocab-size", "500", "--out", tokDir, "--model-max-length", String(MAX_LENGTH));
    tokenizer = await loadTokenizer(tokDir);
    // Short texts of different lengths (5 to 8 words), so padding differs between rows.
    const sentences = readFileSync(corpus, "utf8")
      .split(/(?<=[.!?])\s+/)
      .map((s, i) =>
        s
          .trim()
          .split(/\s+/)
          .slice(0, 5 + (i % 4))
          .join(" "),
      )
      .filter((s) => s.split(" ").length >= 5)
      .slice(0, 8);
    texts = sentences.slice(0, 4);
    pairs = [
      [sentences[4]!, sentences[5]!],
      [sentences[6]!, sentences[7]!],
    ];
    batch = makeBatch(tokenizer);
    const batchFile = join(root, "batch.safetensors");
    await writeSafetensors(batchFile, {
      input_ids: { dtype: "i32", shape: batch.shape, data: batch.ids },
      attention_mask: { dtype: "i32", shape: batch.shape, data: batch.mask },
      token_type_ids: { dtype: "i32", shape: batch.shape, data: batch.types },
    });
    mkdirSync(hf);
    made = runPython<Record<Family, string[]>>("hf_classification.py", [], {
      input: JSON.stringify({
        mode: "make",
        out: hf,
        vocab_size: tokenizer.vocabSize,
        pad_id: tokenizer.padId,
        bos_id: tokenizer.clsId,
        eos_id: tokenizer.sepId,
        max_length: MAX_LENGTH,
        batch: batchFile,
        labels: LABELS,
      }),
    });
  } catch (e) {
    setupError = e;
  }
}

function ready(): void {
  if (setupError) throw setupError;
}

/** Kiln's logits [batch, num_labels] on the shared batch (token types for BERT only, as transformers is given them). */
async function kilnLogits(model: SequenceClassifier, params: Params, family: Family): Promise<Float32Array> {
  const forward = k.jit((p: Params, ids: k.Array, mask: k.Array, types: k.Array) =>
    model.logits(p, ids, mask, family === "bert" ? { tokenTypeIds: types } : {}),
  );
  const { shape } = batch;
  const out = forward(params, k.array(batch.ids, { shape }), k.array(batch.mask, { shape }), k.array(batch.types, { shape }));
  return (await out.data()) as Float32Array;
}

for (const family of FAMILIES) {
  test(
    `${family}: Kiln loads transformers' ${ARCH[family]} with every parameter and gives its logits within ${TOLERANCE}`,
    { skip: pythonSkip },
    async (t) => {
      ready();
      const loaded = await loadModel(join(hf, family));
      assert.equal(loaded.task, "sequence-classification", "config.json's architectures pick the classifier");
      if (loaded.task !== "sequence-classification") return;
      assert.equal(loaded.head, "loaded");
      assert.deepEqual(loaded.notices, [], "every tensor maps onto a parameter");
      assert.deepEqual(loaded.model.config.id2label, { 0: "negative", 1: "neutral", 2: "positive" });
      assert.deepEqual(k.leafPaths(loaded.params).sort(), made![family].filter((n) => !/\.attn\.(masked_)?bias$/.test(n)).sort());
      const ours = await kilnLogits(loaded.model, loaded.params, family);
      const theirs = (await readSafetensors(join(hf, `${family}.hf.safetensors`))).tensors.logits!;
      assert.deepEqual(theirs.shape, [batch.shape[0], LABELS.length]);
      const diff = maxAbsDiff(ours, theirs.data as Float32Array);
      const spread = Math.max(...ours) - Math.min(...ours);
      t.diagnostic(`${family}: max |logit difference| ${diff.toExponential(2)}; logits span ${spread.toFixed(3)}`);
      assert.ok(spread > 0.1, `logits that differ between rows and classes (span ${spread})`);
      assert.ok(diff < TOLERANCE, `max |logit difference| ${diff}`);
    },
  );
}

/** A Kiln classifier of each family at a tiny size, every weight moved off its init so that a misplaced one shows. */
function kilnClassifier(family: Family, seed: number): { model: SequenceClassifier; params: Params } {
  const ids = { vocabSize: tokenizer.vocabSize, padId: tokenizer.padId, clsId: tokenizer.clsId, sepId: tokenizer.sepId };
  const base =
    family === "bert"
      ? { ...presetConfig("mlm-tiny", ids, MAX_LENGTH), model_type: "bert", type_vocab_size: 2, max_position_embeddings: MAX_LENGTH }
      : presetConfig(family === "roberta" ? "mlm-tiny" : family === "llama" ? "llama-tiny" : "gpt2-tiny", ids, MAX_LENGTH);
  const config = classifierConfig({ ...base }, `${family} test config`, { labels: LABELS });
  const model = createSequenceClassifier(config);
  const init = model.init(k.randomKey(seed)) as Params;
  let n = 0;
  const params = k.treeMap((x: k.Array) => x.add(k.normal(k.randomKey(seed * 1000 + n++), x.shape, { std: 0.1 })), init) as Params;
  return { model, params };
}

test(
  "transformers loads Kiln's classifiers with no missing keys, the same logits and the same pipeline results",
  { skip: pythonSkip },
  async (t) => {
    ready();
    const dirs: Record<string, string> = {};
    const ours: Record<string, Float32Array> = {};
    for (const [i, family] of FAMILIES.entries()) {
      const { model, params } = kilnClassifier(family, 7 + i);
      const dir = join(root, "kiln", family);
      await saveModel(dir, model, params);
      for (const f of readdirSync(tokDir)) copyFileSync(join(tokDir, f), join(dir, f));
      dirs[family] = dir;
      ours[family] = await kilnLogits(model, params, family);
      const saved = JSON.parse(readFileSync(join(dir, "config.json"), "utf8"));
      assert.deepEqual(saved.architectures, [ARCH[family]]);
      assert.deepEqual(saved.id2label, { 0: "negative", 1: "neutral", 2: "positive" });
    }
    const report = runPython<Record<Family, CheckReport>>("hf_classification.py", [], {
      input: JSON.stringify({ mode: "check", dirs, batch: join(root, "batch.safetensors"), texts, pairs }),
    });
    for (const family of FAMILIES) {
      const r = report[family];
      assert.equal(r.class, ARCH[family]);
      assert.deepEqual(r.loading_info.missing_keys, [], `${family}: no missing keys`);
      assert.deepEqual(r.loading_info.unexpected_keys, [], `${family}: no unexpected keys`);
      assert.deepEqual(r.loading_info.mismatched_keys ?? [], [], `${family}: no mismatched keys`);
      const theirs = (await readSafetensors(join(dirs[family]!, "hf.safetensors"))).tensors.logits!.data as Float32Array;
      const diff = maxAbsDiff(ours[family]!, theirs);
      t.diagnostic(`${family}: max |logit difference| ${diff.toExponential(2)}`);
      assert.ok(diff < TOLERANCE, `${family}: max |logit difference| ${diff}`);

      const classify = await pipeline("text-classification", dirs[family]!);
      assert.deepEqual(classify.notices, []);
      const compare = (kilnSide: { label: string; score: number }[][], hfSide: { label: string; score: number }[][], what: string) => {
        assert.deepEqual(
          kilnSide.map((r) => r.map((c) => c.label)),
          hfSide.map((r) => r.map((c) => c.label)),
          `${family} ${what}: labels in the same order`,
        );
        const worst = maxAbsDiff(
          kilnSide.flatMap((r) => r.map((c) => c.score)),
          hfSide.flatMap((r) => r.map((c) => c.score)),
        );
        assert.ok(worst < TOLERANCE, `${family} ${what}: max |score difference| ${worst}`);
      };
      compare((await classify(texts, { topK: null })) as { label: string; score: number }[][], r.texts, "texts");
      // transformers' tokenizer here gives no token_type_ids (Kiln's tokenizer_config), so BERT pairs are held by the logits above.
      if (r.pairs)
        compare(
          (await classify(
            pairs.map(([text, textPair]) => ({ text, textPair })),
            { topK: null },
          )) as { label: string; score: number }[][],
          r.pairs,
          "pairs",
        );
    }
  },
);

test(
  "all-MiniLM-L6-v2 (an encoder) loads as a classifier whose fresh head is what transformers initializes",
  { skip: pythonSkip },
  async () => {
    const r = runPython<{ dir: string; loading_info: Record<string, string[]> }>("hf_classification.py", [], {
      input: JSON.stringify({ mode: "minilm" }),
    });
    const loaded = await loadModel(r.dir, { task: "sequence-classification" });
    assert.equal(loaded.model.architecture, "BertForSequenceClassification");
    assert.equal(loaded.head, "initialized");
    const missing = r.loading_info.missing_keys!;
    assert.ok(missing.length > 0, "transformers initializes a head too");
    const notice = loaded.notices.find((n) => n.includes("newly initialized"));
    assert.ok(notice, loaded.notices.join("\n"));
    assert.ok(notice.includes(`newly initialized: ${missing.join(", ")};`), `${notice}\nnames ${missing.join(", ")}`);
  },
);
