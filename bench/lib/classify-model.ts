// all-MiniLM-L6-v2's shapes (sentence-transformers' encoder: BERT, 6 layers, hidden 384, 12 heads,
// intermediate 1536, vocabulary 30522) as a config.json object, and the FLOPs of training it on padded
// batches: 6 per matmul parameter per token (the embeddings are lookups, not matmuls) plus attention's
// score and context matmuls, 12·layers·L²·hidden per row (forward and backward).
import type { ClassifyBatch } from "./classify-batches.js";
import { classifierConfig } from "../../src/models/classification/config.js";
import { createSequenceClassifier } from "../../src/models/classification/model.js";
import { sequenceClassificationObjective } from "../../src/train/objectives/sequence-classification.js";

export const MINILM_SHAPES = {
  model_type: "bert",
  architectures: ["BertModel"],
  vocab_size: 30522,
  hidden_size: 384,
  num_hidden_layers: 6,
  num_attention_heads: 12,
  intermediate_size: 1536,
  hidden_act: "gelu",
  hidden_dropout_prob: 0.1,
  attention_probs_dropout_prob: 0.1,
  max_position_embeddings: 512,
  type_vocab_size: 2,
  initializer_range: 0.02,
  layer_norm_eps: 1e-12,
  pad_token_id: 0,
};

/** Training FLOPs of a pass over `batches` (padded shapes: what both contenders compute). */
export function modelFlops(
  c: { hidden_size: number; num_hidden_layers: number; intermediate_size: number },
  batches: readonly ClassifyBatch[],
  rows: number,
): number {
  const h = c.hidden_size,
    layers = c.num_hidden_layers;
  // Per layer: Q, K, V, output (4·h²) and the MLP (2·h·I); the pooler (h²); the 2-class head is noise.
  const matmulParams = layers * (4 * h * h + 2 * h * c.intermediate_size) + h * h;
  return batches.reduce((sum, b) => sum + 6 * matmulParams * rows * b.length + 12 * layers * rows * b.length ** 2 * h, 0);
}

/** A two-class BERT classifier of these shapes and the objective it fine-tunes with. */
export function minilmClassifier(vocab = MINILM_SHAPES.vocab_size) {
  const config = classifierConfig({ ...MINILM_SHAPES, vocab_size: vocab }, "all-MiniLM-L6-v2's shapes", { numLabels: 2 });
  const model = createSequenceClassifier(config);
  return { config, model, objective: sequenceClassificationObjective({ model }) };
}
