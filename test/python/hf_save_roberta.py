"""A small randomly initialized RobertaForMaskedLM saved by transformers' save_pretrained (safetensors),
for the fine-tuning example. Reads a JSON job on stdin:
  {"out": DIR, "vocab_size", "pad_id", "bos_id", "eos_id", "max_length"}
and prints a JSON line with the files written.
"""

import json
import os
import sys

import torch
from transformers import RobertaConfig, RobertaForMaskedLM

job = json.loads(sys.stdin.read())
torch.manual_seed(0)
config = RobertaConfig(
    vocab_size=job["vocab_size"],
    hidden_size=32,
    num_hidden_layers=2,
    num_attention_heads=2,
    intermediate_size=64,
    max_position_embeddings=job["max_length"] + job["pad_id"] + 1,
    type_vocab_size=1,
    pad_token_id=job["pad_id"],
    bos_token_id=job["bos_id"],
    eos_token_id=job["eos_id"],
)
model = RobertaForMaskedLM(config)
model.save_pretrained(job["out"], safe_serialization=True)
print(json.dumps({"files": sorted(os.listdir(job["out"]))}))
