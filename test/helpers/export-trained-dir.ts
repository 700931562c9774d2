// A Kiln-trained model directory for the export tests, made through the `kiln` command alone: a tokenizer
// and shards from a few speeches, a tiny RoBERTa trained for a few dozen steps (enough for fill-mask's
// top scores to stand apart), then `kiln export`.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { writeSotuCorpus } from "../../src/data/sotu.js";
import { kiln } from "./hf-interop.js";

/** Longer than the exporter's first traced length (32), so that a dynamic export holds two (32 and 48). */
export const EXPORT_MAX_LENGTH = 48;

export interface TrainedDir {
  /** The model directory (config.json, model.safetensors, tokenizer files). */
  dir: string;
  /** The speeches it was trained on, one per line. */
  lines: string[];
}

/** Trains a tiny RoBERTa under `root`/model; the tokenizer's ids: [CLS] 0, [SEP] 1, <pad> 3. */
export function trainExportModel(root: string): TrainedDir {
  mkdirSync(root, { recursive: true });
  const corpus = join(root, "train.txt");
  writeSotuCorpus(corpus, { first: 6 });
  const tok = join(root, "tokenizer");
  kiln("tokenizer", "train", "--input", corpus, "--vocab-size", "600", "--out", tok, "--model-max-length", String(EXPORT_MAX_LENGTH));
  kiln(
    "data",
    "prepare",
    "--tokenizer",
    tok,
    "--input",
    corpus,
    "--out",
    join(root, "shards"),
    "--max-length",
    String(EXPORT_MAX_LENGTH),
    "--quiet",
  );
  const config = join(root, "config.json");
  writeFileSync(
    config,
    JSON.stringify({
      model_type: "roberta",
      vocab_size: 600,
      hidden_size: 32,
      num_hidden_layers: 2,
      num_attention_heads: 4,
      intermediate_size: 64,
      max_position_embeddings: EXPORT_MAX_LENGTH + 4,
      type_vocab_size: 1,
      layer_norm_eps: 1e-5,
      pad_token_id: 3,
      bos_token_id: 0,
      eos_token_id: 1,
    }),
  );
  const dir = join(root, "model");
  kiln(
    "train",
    "--model-config",
    config,
    "--tokenizer",
    tok,
    "--train-data",
    join(root, "shards", "train"),
    "--output-dir",
    dir,
    "--max-steps",
    "60",
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
  return { dir, lines: readFileSync(corpus, "utf8").split("\n").filter(Boolean) };
}
