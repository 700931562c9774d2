"""What Python `transformers` sees in model directories Kiln wrote.

Reads a JSON job on stdin:
  {"out": DIR,
   "models": [{"name", "dir", "checkpoint", "batch": SAFETENSORS(input_ids, attention_mask),
               "sentences": [...], "fill_mask": [TEXT, ...]}],
   "corpus": TEXT_FILE, "tokenizer_dir": DIR}
and writes, per model, OUT/<name>.hf.safetensors (the logits of AutoModelForMaskedLM on the batch, in
eval mode) and, for the corpus, OUT/corpus_ids.safetensors (AutoTokenizer's ids of every line, flat, with
each line's offset). The last stdout line is a JSON report: loading info and logged warnings, the tie,
fill-mask results, the padded batch AutoTokenizer makes from the sentences, and what safetensors.safe_open
reads in the checkpoint's model.safetensors and optimizer.safetensors.
"""

import json
import logging
import os
import sys
import warnings

import torch
import transformers
from safetensors import safe_open
from safetensors.torch import load_file, save_file
from transformers import AutoModelForMaskedLM, AutoTokenizer, pipeline


class Captured(logging.Handler):
    """Every transformers log record at WARNING or above."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def capture(fn):
    """Runs fn, returning its result and whatever transformers logged or warned meanwhile."""
    handler = Captured()
    transformers.logging.add_handler(handler)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = fn()
    finally:
        transformers.logging.remove_handler(handler)
    return result, handler.messages + [str(w.message) for w in caught]


def safetensors_view(path):
    """Keys with dtype and shape, and the metadata dict, as safe_open reads them."""
    with safe_open(path, framework="pt") as f:
        return {
            "metadata": f.metadata(),
            "tensors": {k: {"dtype": f.get_slice(k).get_dtype(), "shape": list(f.get_slice(k).get_shape())} for k in f.keys()},
        }


def tie_view(model, model_file):
    """Whether the loaded decoder is the word-embedding tensor itself, and equal to the file's copy."""
    out_emb = model.get_output_embeddings()
    in_emb = model.get_input_embeddings()
    stored = load_file(model_file)
    emb_name = next(k for k in stored if k.endswith("embeddings.word_embeddings.weight"))
    head_bias_name = next(k for k in stored if k in ("lm_head.bias", "cls.predictions.bias"))
    return {
        "decoder_is_embeddings": out_emb.weight is in_emb.weight or out_emb.weight.data_ptr() == in_emb.weight.data_ptr(),
        "decoder_equals_file_embeddings": bool(torch.equal(out_emb.weight.detach(), stored[emb_name])),
        "decoder_bias_equals_file_bias": bool(torch.equal(out_emb.bias.detach(), stored[head_bias_name])),
        "file_has_decoder": any(".decoder." in k for k in stored),
    }


def view_model(spec, out_dir):
    name, model_dir = spec["name"], spec["dir"]
    (model, info), load_warnings = capture(lambda: AutoModelForMaskedLM.from_pretrained(model_dir, output_loading_info=True))
    model.eval()
    batch = load_file(spec["batch"])
    with torch.no_grad():
        logits = model(input_ids=batch["input_ids"].long(), attention_mask=batch["attention_mask"].long()).logits
    save_file({"logits": logits.contiguous()}, os.path.join(out_dir, f"{name}.hf.safetensors"))

    tok, tokenizer_warnings = capture(lambda: AutoTokenizer.from_pretrained(model_dir))
    padded = tok(spec["sentences"], padding=True)
    fill, pipeline_warnings = capture(lambda: pipeline("fill-mask", model=model_dir, top_k=5, device="cpu"))
    fill_results = [fill(text) for text in spec["fill_mask"]]

    report = {
        "class": type(model).__name__,
        "config": {k: v for k, v in model.config.to_dict().items() if isinstance(v, (int, float, str, bool, list, type(None)))},
        "loading_info": {k: sorted(map(str, v)) for k, v in info.items()},
        "load_warnings": load_warnings,
        "tokenizer_warnings": tokenizer_warnings,
        "pipeline_warnings": pipeline_warnings,
        "tie": tie_view(model, os.path.join(model_dir, "model.safetensors")),
        "tokenizer_class": type(tok).__name__,
        "special_ids": {
            role: getattr(tok, f"{role}_token_id") for role in ("cls", "sep", "unk", "pad", "mask")
        }
        | {"all": sorted(tok.all_special_ids), "model_max_length": tok.model_max_length},
        "padded": {"input_ids": padded["input_ids"], "attention_mask": padded["attention_mask"]},
        "fill_mask": fill_results,
    }
    ckpt = spec.get("checkpoint")
    if ckpt:
        ck_model, ck_warnings = capture(lambda: AutoModelForMaskedLM.from_pretrained(ckpt, output_loading_info=True))
        report["checkpoint"] = {
            "model": safetensors_view(os.path.join(ckpt, "model.safetensors")),
            "optimizer": safetensors_view(os.path.join(ckpt, "optimizer.safetensors")),
            "loading_info": {k: sorted(map(str, v)) for k, v in ck_model[1].items()},
            "load_warnings": ck_warnings,
            "tie": tie_view(ck_model[0], os.path.join(ckpt, "model.safetensors")),
        }
    return report


def view_corpus(corpus, tokenizer_dir, out_dir):
    """AutoTokenizer's ids for every line of the corpus, flat, with line offsets (no truncation)."""
    tok = AutoTokenizer.from_pretrained(tokenizer_dir)
    tok.model_max_length = 1 << 30  # whole speeches: no "sequence too long" warning, no truncation
    with open(corpus, encoding="utf8") as f:
        lines = [line.rstrip("\n") for line in f if line.strip("\n")]
    ids = tok(lines)["input_ids"]
    offsets = [0]
    for row in ids:
        offsets.append(offsets[-1] + len(row))
    flat = torch.tensor([i for row in ids for i in row], dtype=torch.int32)
    save_file({"ids": flat, "offsets": torch.tensor(offsets, dtype=torch.int64)}, os.path.join(out_dir, "corpus_ids.safetensors"))
    return {"lines": len(lines), "tokens": int(flat.numel()), "tokenizer_class": type(tok).__name__}


def main():
    job = json.load(sys.stdin)
    transformers.logging.set_verbosity_warning()
    transformers.logging.disable_progress_bar()
    report = {
        "versions": {"transformers": transformers.__version__, "torch": torch.__version__},
        "models": {spec["name"]: view_model(spec, job["out"]) for spec in job["models"]},
    }
    if job.get("corpus"):
        report["corpus"] = view_corpus(job["corpus"], job["tokenizer_dir"], job["out"])
    print(json.dumps(report))


if __name__ == "__main__":
    main()
