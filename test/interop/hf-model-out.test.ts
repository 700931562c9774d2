// Model directories that `kiln train` writes, opened by the real Python libraries: transformers'
// AutoModelForMaskedLM (nothing missing, unexpected or re-initialized, no warnings, the same logits),
// its fill-mask pipeline (the same top 5), AutoTokenizer (the same ids over the whole SOTU corpus), and
// safetensors' safe_open on a checkpoint's model.safetensors and optimizer.safetensors. One Python
// process (test/python/hf_view_kiln_dirs.py) records what Python sees; the comparisons are made here.
import test from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadModel, TRANSFORMERS_FORMAT_VERSION, type Params } from "../../src/models/index.js";
import type { MaskedLanguageModel } from "../../src/models/index.js";
import { readSafetensors } from "../../src/models/safetensors.js";
import { loadTokenizer } from "../../src/text/index.js";
import { FillMaskPipeline, type FillMaskResult } from "../../src/pipelines/fill-mask.js";
import { writeSotuCorpus } from "../../src/data/sotu.js";
import { pinnedVersion, pythonSkip, runPython } from "../helpers/python.js";
import { kiln, kilnLogits, maxAbsDiff, padBatch, sotuSentences, writeBatch, type PaddedBatch } from "../helpers/hf-interop.js";
import { tempDir } from "../helpers/temp-dir.js";

const TOLERANCE = 1e-4;
const MAX_LENGTH = 32;
const STEPS = 6;

interface SafetensorsView {
  metadata: Record<string, string> | null;
  tensors: Record<string, { dtype: string; shape: number[] }>;
}
interface ModelView {
  class: string;
  config: Record<string, unknown>;
  loading_info: Record<string, string[]>;
  load_warnings: string[];
  tokenizer_warnings: string[];
  pipeline_warnings: string[];
  tie: {
    decoder_is_embeddings: boolean;
    decoder_equals_file_embeddings: boolean;
    decoder_bias_equals_file_bias: boolean;
    file_has_decoder: boolean;
  };
  tokenizer_class: string;
  special_ids: Record<"cls" | "sep" | "unk" | "pad" | "mask" | "model_max_length", number> & { all: number[] };
  padded: { input_ids: number[][]; attention_mask: number[][] };
  fill_mask: (FillMaskResult[] | FillMaskResult[][])[];
  checkpoint: {
    model: SafetensorsView;
    optimizer: SafetensorsView;
    loading_info: Record<string, string[]>;
    load_warnings: string[];
    tie: ModelView["tie"];
  };
}
interface Report {
  versions: Record<string, string>;
  models: Record<string, ModelView>;
  corpus: { lines: number; tokens: number; tokenizer_class: string };
}

// Tiny configs: RoBERTa (positions counted from pad+1, eps 1e-5) and BERT (absolute positions, two
// token types, eps 1e-12). The vocabulary and pad id come from the tokenizer trained below.
const CONFIGS = {
  roberta: {
    model_type: "roberta",
    hidden_size: 32,
    num_hidden_layers: 2,
    num_attention_heads: 4,
    intermediate_size: 64,
    max_position_embeddings: MAX_LENGTH + 4,
    type_vocab_size: 1,
    layer_norm_eps: 1e-5,
  },
  bert: {
    model_type: "bert",
    hidden_size: 32,
    num_hidden_layers: 2,
    num_attention_heads: 4,
    intermediate_size: 64,
    max_position_embeddings: 64,
    type_vocab_size: 2,
    layer_norm_eps: 1e-12,
  },
} as const;
type Kind = keyof typeof CONFIGS;
const KINDS = Object.keys(CONFIGS) as Kind[];

const FILL_MASK_TEXTS = ["Goal of my life is to [MASK].", "The state of the [MASK] is strong.", "We must [MASK] the [MASK] of our people."];

const root = tempDir("kiln-hf-out-");

interface Trained {
  dir: string;
  checkpoint: string;
  model: MaskedLanguageModel;
  params: Params;
  batch: PaddedBatch;
  logits: Float32Array;
  fillMask: (FillMaskResult[] | FillMaskResult[][])[];
  cliFillMask: FillMaskResult[];
}

let report: Report | undefined;
let setupError: unknown;
const trained = {} as Record<Kind, Trained>;
let sentences: string[] = [];
let corpusLines: string[] = [];
let batch: PaddedBatch | undefined;

if (!pythonSkip) {
  try {
    // Tokenizer and shards from the first 12 speeches, all through the `kiln` command.
    const train = join(root, "train.txt");
    writeSotuCorpus(train, { first: 12 });
    const tokDir = join(root, "tokenizer");
    kiln("tokenizer", "train", "--input", train, "--vocab-size", "800", "--out", tokDir, "--model-max-length", String(MAX_LENGTH));
    kiln(
      "data",
      "prepare",
      "--tokenizer",
      tokDir,
      "--input",
      train,
      "--out",
      join(root, "shards"),
      "--max-length",
      String(MAX_LENGTH),
      "--quiet",
    );
    const tokenizer = await loadTokenizer(tokDir);
    const trainLines = readFileSync(train, "utf8").split("\n").filter(Boolean);
    sentences = sotuSentences(trainLines, (s) => tokenizer.encode(s), 6, 8, MAX_LENGTH);
    batch = padBatch(
      sentences.map((s) => tokenizer.encode(s)),
      tokenizer.padId,
    );
    const batchFile = join(root, "batch.safetensors");
    await writeBatch(batchFile, batch);

    for (const kind of KINDS) {
      const configFile = join(root, `${kind}.json`);
      writeFileSync(
        configFile,
        JSON.stringify({
          ...CONFIGS[kind],
          vocab_size: tokenizer.vocabSize,
          pad_token_id: tokenizer.padId,
          ...(kind === "roberta" ? { bos_token_id: tokenizer.clsId, eos_token_id: tokenizer.sepId } : {}),
        }),
      );
      const dir = join(root, kind);
      kiln(
        "train",
        "--model-config",
        configFile,
        "--tokenizer",
        tokDir,
        "--train-data",
        join(root, "shards", "train"),
        "--output-dir",
        dir,
        "--max-steps",
        String(STEPS),
        "--checkpoint-every",
        String(STEPS / 2),
        "--learning-rate",
        "3e-3",
        "--per-replica-batch-size",
        "8",
        "--accelerator",
        "cpu",
        "--seed",
        "7",
        "--quiet",
      );
      const { model, params } = await loadModel(dir, { task: "mlm" });
      const pipe = new FillMaskPipeline(model, params, tokenizer);
      const fillMask = [];
      // Hugging Face's shape: a list for a text with one mask, a list per mask for a text with several.
      for (const text of FILL_MASK_TEXTS) {
        const perMask = await pipe.call(text, { topK: 5, eachMask: true });
        fillMask.push(perMask.length === 1 ? perMask[0]! : perMask);
      }
      trained[kind] = {
        dir,
        checkpoint: join(dir, `checkpoint-${STEPS / 2}`),
        model,
        params,
        batch,
        logits: await kilnLogits(model, params, batch),
        fillMask,
        cliFillMask: JSON.parse(kiln("fill-mask", "--model", dir, FILL_MASK_TEXTS[0]!, "--top-k", "5", "--json")) as FillMaskResult[],
      };
    }

    // AutoTokenizer is checked on the whole corpus (233 speeches), most of it text the tokenizer never saw.
    const corpus = join(root, "sotu.txt");
    writeSotuCorpus(corpus);
    corpusLines = readFileSync(corpus, "utf8").split("\n").filter(Boolean);
    const out = join(root, "python");
    mkdirSync(out);
    report = runPython<Report>("hf_view_kiln_dirs.py", [], {
      input: JSON.stringify({
        out,
        models: KINDS.map((kind) => ({
          name: kind,
          dir: trained[kind].dir,
          checkpoint: trained[kind].checkpoint,
          batch: batchFile,
          sentences,
          fill_mask: FILL_MASK_TEXTS,
        })),
        corpus,
        tokenizer_dir: tokDir,
      }),
    });
  } catch (e) {
    setupError = e;
  }
}

/** The Python side's report, or the setup's failure as this test's failure. */
function seen(): Report {
  if (setupError) throw setupError;
  return report!;
}

const out = () => join(root, "python");

test("the tests run against the pinned Python libraries, and config.json names that transformers version", { skip: pythonSkip }, () => {
  const r = seen();
  assert.equal(r.versions.transformers, pinnedVersion("transformers"));
  assert.equal(
    TRANSFORMERS_FORMAT_VERSION,
    pinnedVersion("transformers"),
    "bump TRANSFORMERS_FORMAT_VERSION with the pin, after these tests pass",
  );
  assert.equal(r.versions.torch?.split("+")[0], pinnedVersion("torch"));
});

for (const kind of KINDS) {
  test(
    `${kind}: AutoModelForMaskedLM loads Kiln's directory with nothing missing, unexpected, mismatched or re-initialized, ` +
      `and no warnings (model, tokenizer, pipeline)`,
    { skip: pythonSkip },
    () => {
      const v = seen().models[kind]!;
      assert.equal(v.class, kind === "roberta" ? "RobertaForMaskedLM" : "BertForMaskedLM");
      assert.deepEqual(v.loading_info, { missing_keys: [], unexpected_keys: [], mismatched_keys: [], error_msgs: [] });
      assert.deepEqual(v.load_warnings, [], "transformers logged nothing while loading");
      assert.deepEqual(v.tokenizer_warnings, [], "nor while loading the tokenizer");
      assert.deepEqual(v.pipeline_warnings, [], "nor while building the fill-mask pipeline");
      assert.deepEqual(v.checkpoint.loading_info, { missing_keys: [], unexpected_keys: [], mismatched_keys: [], error_msgs: [] });
      assert.deepEqual(v.checkpoint.load_warnings, []);
    },
  );

  test(`${kind}: config.json means the same to transformers as to Kiln`, { skip: pythonSkip }, () => {
    const v = seen().models[kind]!;
    const written = JSON.parse(readFileSync(join(trained[kind].dir, "config.json"), "utf8")) as Record<string, unknown>;
    for (const [key, value] of Object.entries(written)) assert.deepEqual(v.config[key], value, `config.json "${key}"`);
    assert.equal(v.config.dtype, "float32");
    assert.equal(v.config.tie_word_embeddings, true);
  });

  test(`${kind}: logits on a padded batch of SOTU sentences equal Kiln's within ${TOLERANCE}`, { skip: pythonSkip }, async (t) => {
    seen();
    const theirs = (await readSafetensors(join(out(), `${kind}.hf.safetensors`))).tensors.logits!;
    const [rows, len] = trained[kind].batch.shape;
    assert.deepEqual(theirs.shape, [rows, len, trained[kind].model.config.vocab_size]);
    const diff = maxAbsDiff(theirs.data as Float32Array, trained[kind].logits);
    t.diagnostic(
      `${kind}: max |logit difference| ${diff.toExponential(2)} over ${theirs.data.length} logits (${rows} sentences padded to ${len})`,
    );
    assert.ok(diff < TOLERANCE, `max |logit difference| ${diff}`);
  });

  test(
    `${kind}: the fill-mask pipeline gives Kiln's top 5 (tokens, strings, sequences; scores within ${TOLERANCE})`,
    { skip: pythonSkip },
    (t) => {
      const v = seen().models[kind]!;
      let worst = 0;
      const compare = (ours: FillMaskResult[], theirs: FillMaskResult[], what: string) => {
        assert.deepEqual(
          theirs.map((r) => r.token),
          ours.map((r) => r.token),
          `${what}: top-5 tokens`,
        );
        assert.deepEqual(
          theirs.map((r) => [r.token_str, r.sequence]),
          ours.map((r) => [r.token_str, r.sequence]),
          what,
        );
        theirs.forEach((r, i) => (worst = Math.max(worst, Math.abs(r.score - ours[i]!.score))));
      };
      FILL_MASK_TEXTS.forEach((text, i) => {
        const ours = trained[kind].fillMask[i]!,
          theirs = v.fill_mask[i]!;
        if (Array.isArray(ours[0])) {
          assert.equal(theirs.length, ours.length, `${text}: one list per mask`);
          (ours as FillMaskResult[][]).forEach((o, m) => compare(o, (theirs as FillMaskResult[][])[m]!, `${text}, mask ${m + 1}`));
        } else compare(ours as FillMaskResult[], theirs as FillMaskResult[], text);
      });
      compare(trained[kind].cliFillMask, v.fill_mask[0] as FillMaskResult[], `kiln fill-mask: ${FILL_MASK_TEXTS[0]}`);
      t.diagnostic(`${kind}: max |score difference| ${worst.toExponential(2)}`);
      assert.ok(worst < TOLERANCE, `max |score difference| ${worst}`);
    },
  );

  test(
    `${kind}: safe_open reads the checkpoint's model.safetensors and optimizer.safetensors as Kiln wrote them`,
    { skip: pythonSkip },
    async () => {
      const ck = seen().models[kind]!.checkpoint;
      for (const [file, view] of [
        ["model.safetensors", ck.model],
        ["optimizer.safetensors", ck.optimizer],
      ] as const) {
        const ours = await readSafetensors(join(trained[kind].checkpoint, file));
        assert.deepEqual(view.metadata ?? {}, ours.metadata, `${file}: metadata`);
        assert.deepEqual(Object.keys(view.tensors).sort(), Object.keys(ours.tensors).sort(), `${file}: tensor names`);
        for (const [name, t] of Object.entries(ours.tensors))
          assert.deepEqual(view.tensors[name], { dtype: "F32", shape: t.shape }, `${file}: ${name}`);
      }
      assert.deepEqual(ck.model.metadata, { format: "pt" }, "transformers reads format=pt as PyTorch weights");
      // The optimizer holds both moments of every parameter, named after it, and the step count.
      const params = Object.keys(ck.model.tensors).sort();
      assert.deepEqual(
        Object.keys(ck.optimizer.tensors).sort(),
        [...params.map((n) => `exp_avg.${n}`), ...params.map((n) => `exp_avg_sq.${n}`), "step"].sort(),
      );
      for (const n of params) assert.deepEqual(ck.optimizer.tensors[`exp_avg.${n}`]!.shape, ck.model.tensors[n]!.shape);
    },
  );

  test(`${kind}: the tied decoder is stored once, and torch ties it to the word embeddings`, { skip: pythonSkip }, () => {
    const v = seen().models[kind]!;
    for (const tie of [v.tie, v.checkpoint.tie])
      assert.deepEqual(tie, {
        decoder_is_embeddings: true,
        decoder_equals_file_embeddings: true,
        decoder_bias_equals_file_bias: true,
        file_has_decoder: false,
      });
  });
}

test(
  "AutoTokenizer gives Kiln's ids on every line of the SOTU corpus, Kiln's padded batch and Kiln's special tokens",
  { skip: pythonSkip },
  async (t) => {
    const r = seen();
    const tokenizer = await loadTokenizer(trained.roberta.dir);
    const { ids, offsets } = (await readSafetensors(join(out(), "corpus_ids.safetensors"))).tensors;
    const flat = ids!.data as Int32Array,
      at = offsets!.data as BigInt64Array;
    assert.equal(r.corpus.lines, corpusLines.length);
    corpusLines.forEach((line, i) => {
      const theirs = Array.from(flat.subarray(Number(at[i]), Number(at[i + 1])));
      assert.deepEqual(tokenizer.encode(line), theirs, `line ${i + 1} (${line.slice(0, 60)}…)`);
    });
    t.diagnostic(`${r.corpus.lines} lines, ${r.corpus.tokens} tokens, ${r.corpus.tokenizer_class}`);
    for (const kind of KINDS) {
      assert.deepEqual(r.models[kind]!.special_ids, {
        cls: tokenizer.clsId,
        sep: tokenizer.sepId,
        unk: tokenizer.unkId,
        pad: tokenizer.padId,
        mask: tokenizer.maskId,
        all: [...tokenizer.specialIds].sort((a, b) => a - b),
        model_max_length: MAX_LENGTH,
      });
      const padded = r.models[kind]!.padded;
      const [rows, len] = batch!.shape;
      assert.deepEqual(padded.input_ids.flat(), Array.from(batch!.inputIds), `${kind}: padded ids`);
      assert.deepEqual(padded.attention_mask.flat(), Array.from(batch!.attentionMask), `${kind}: attention mask`);
      assert.equal(padded.input_ids.length * padded.input_ids[0]!.length, rows * len);
    }
  },
);
