"""transformers' greedy generation on model directories Kiln wrote.

Reads a JSON job on stdin: {"models": [{"name", "dir"}], "prompts": [[ids], ...], "max_new_tokens": N}
and, for each model, runs AutoModelForCausalLM.from_pretrained(dir).generate(do_sample=False) on the
prompts as one left-padded batch (attention mask, pad_token_id set) and on each prompt alone. Prints
one JSON line: {name: {"class", "batch": [[new ids], ...], "single": [[new ids], ...], "pad"}}, the
new ids including any padding after an end-of-sequence token.
"""

import json
import sys

import torch
from transformers import AutoModelForCausalLM

job = json.load(sys.stdin)
n = job["max_new_tokens"]
prompts = job["prompts"]
out = {}
for m in job["models"]:
    model = AutoModelForCausalLM.from_pretrained(m["dir"], dtype=torch.float32).eval()
    cfg = model.config
    eos = cfg.eos_token_id
    pad = cfg.pad_token_id if cfg.pad_token_id is not None else (eos[0] if isinstance(eos, list) else eos)
    width = max(len(p) for p in prompts)
    ids = torch.tensor([[pad] * (width - len(p)) + p for p in prompts], dtype=torch.long)
    mask = torch.tensor([[0] * (width - len(p)) + [1] * len(p) for p in prompts], dtype=torch.long)

    def generate(input_ids, attention_mask):
        with torch.inference_mode():
            r = model.generate(input_ids=input_ids, attention_mask=attention_mask, do_sample=False, max_new_tokens=n,
                               pad_token_id=pad, eos_token_id=eos)
        return r[:, input_ids.shape[1]:].tolist()

    single = [generate(torch.tensor([p]), torch.ones(1, len(p), dtype=torch.long))[0] for p in prompts]
    out[m["name"]] = {"class": type(model).__name__, "batch": generate(ids, mask), "single": single, "pad": pad}
print(json.dumps(out))
