"""transformers' sampling warpers on given logits, as GenerationMixin applies them when do_sample=True.

Reads a JSON job on stdin: {"logits": [[...], ...] (float32 rows), "cases": [{"temperature", "top_k",
"top_p"}, ...]} and prints one JSON line: for each case, each row's warped scores with removed tokens
as null (JSON has no -Infinity), after the warpers that generate builds from a GenerationConfig with
those values (temperature, then top-k, then top-p; each left out at its neutral value).
"""

import json
import sys

import torch
from transformers import GenerationConfig
from transformers.generation.logits_process import TemperatureLogitsWarper, TopKLogitsWarper, TopPLogitsWarper

job = json.load(sys.stdin)
logits = torch.tensor(job["logits"], dtype=torch.float32)
out = []
for case in job["cases"]:
    config = GenerationConfig(do_sample=True, temperature=float(case["temperature"]), top_k=case["top_k"], top_p=float(case["top_p"]))
    warpers = []
    if config.temperature is not None and config.temperature != 1.0:
        warpers.append(TemperatureLogitsWarper(config.temperature))
    if config.top_k is not None and config.top_k != 0:
        warpers.append(TopKLogitsWarper(top_k=config.top_k))
    if config.top_p is not None and config.top_p < 1.0:
        warpers.append(TopPLogitsWarper(top_p=config.top_p))
    scores = logits.clone()
    for w in warpers:
        scores = w(None, scores)
    out.append([[None if v == float("-inf") else v for v in row] for row in scores.tolist()])
print(json.dumps(out))
