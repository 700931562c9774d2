"""What transformers' tokenizer and greedy generation do with a causal-LM directory Kiln wrote.

Reads a JSON job on stdin: {"dirs": [DIR, ...], "prompts": [TEXT, ...], "max_new_tokens": N} and prints
one JSON line: {DIR: {"ids": [[...] per prompt], "pair": [ids of prompts[0] with prompts[1]],
"generated": [[new ids] per prompt]}}, where ids is AutoTokenizer.from_pretrained(DIR)(prompt)'s
input_ids and generated is the model's generate(**tok(prompt), do_sample=False) past the prompt.
"""

import json
import sys

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

job = json.load(sys.stdin)
out = {}
for d in job["dirs"]:
    tok = AutoTokenizer.from_pretrained(d)
    entry = {"ids": [tok(p)["input_ids"] for p in job["prompts"]]}
    entry["pair"] = tok(job["prompts"][0], job["prompts"][1])["input_ids"]
    if job["max_new_tokens"] > 0:
        model = AutoModelForCausalLM.from_pretrained(d, dtype=torch.float32).eval()
        entry["generated"] = []
        for p in job["prompts"]:
            enc = tok(p, return_tensors="pt")
            with torch.inference_mode():
                seq = model.generate(**enc, do_sample=False, max_new_tokens=job["max_new_tokens"], pad_token_id=model.config.pad_token_id)
            entry["generated"].append(seq[0, enc["input_ids"].shape[1] :].tolist())
    out[d] = entry
print(json.dumps(out))
