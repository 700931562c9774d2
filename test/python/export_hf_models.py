"""Model directories written by Python `transformers`, for `kiln export`.

Reads a JSON job on stdin: {"out": DIR, "batch": SAFETENSORS(input_ids, attention_mask)} and writes under OUT:
  bert/                save_pretrained of a random BertForMaskedLM (safetensors)
  roberta-encoder/     save_pretrained of a random RobertaModel (an encoder: no masked-LM head)
  outputs.safetensors  transformers' outputs on the batch (eval mode): bert.logits, bert.last_hidden_state,
                       roberta-encoder.last_hidden_state
The last stdout line is a JSON report: {"transformers": VERSION}.
"""

import json
import os
import sys

import torch
import transformers
from safetensors.torch import load_file, save_file
from transformers import BertConfig, BertForMaskedLM, RobertaConfig, RobertaModel

VOCAB, PAD, MAX_LENGTH = 100, 1, 24


def randomize(model, seed):
    """Every parameter random (LayerNorms and biases too), so a misplaced weight shows."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            scale, base = (0.2, 1.0) if name.endswith("LayerNorm.weight") else (0.1, 0.0)
            p.copy_(base + scale * torch.randn(p.shape, generator=g))
    return model.eval()


def main():
    job = json.load(sys.stdin)
    out = job["out"]
    transformers.logging.set_verbosity_error()
    batch = load_file(job["batch"])
    ids, mask = batch["input_ids"].long(), batch["attention_mask"].long()
    common = dict(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, pad_token_id=PAD)
    bert = randomize(BertForMaskedLM(BertConfig(**common, max_position_embeddings=MAX_LENGTH)), 1)
    encoder = randomize(
        RobertaModel(RobertaConfig(**common, max_position_embeddings=MAX_LENGTH + PAD + 1, type_vocab_size=1), add_pooling_layer=False), 2
    )
    bert.save_pretrained(os.path.join(out, "bert"))
    encoder.save_pretrained(os.path.join(out, "roberta-encoder"))
    with torch.no_grad():
        b = bert(input_ids=ids, attention_mask=mask, output_hidden_states=True)
        e = encoder(input_ids=ids, attention_mask=mask)
    save_file(
        {
            "bert.logits": b.logits.contiguous(),
            "bert.last_hidden_state": b.hidden_states[-1].contiguous(),
            "roberta-encoder.last_hidden_state": e.last_hidden_state.contiguous(),
        },
        os.path.join(out, "outputs.safetensors"),
    )
    print(json.dumps({"transformers": transformers.__version__}))


main()
