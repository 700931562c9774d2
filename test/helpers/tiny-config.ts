// The smallest RoBERTa for the test tokenizer that makeTestCorpus(_, 300) trains (300 pieces, pad id 3):
// one layer of width 16. Tests that run `kiln train --model-config` write it as a file.
import { existsSync, writeFileSync } from "node:fs";

export const ONE_LAYER_CONFIG = {
  model_type: "roberta",
  vocab_size: 300,
  hidden_size: 16,
  num_hidden_layers: 1,
  num_attention_heads: 2,
  intermediate_size: 16,
  max_position_embeddings: 20,
  type_vocab_size: 1,
  pad_token_id: 3,
};

/** Writes ONE_LAYER_CONFIG to `path` (once) and returns the path. */
export function writeOneLayerConfig(path: string): string {
  if (!existsSync(path)) writeFileSync(path, JSON.stringify(ONE_LAYER_CONFIG));
  return path;
}
