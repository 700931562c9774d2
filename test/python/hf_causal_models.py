"""Causal LMs across the Kiln / transformers boundary, both ways, in one process.

Reads a JSON job on stdin:
  {"kiln": {NAME: DIR, ...},            directories Kiln's saveModel wrote (LlamaForCausalLM / GPT2LMHeadModel)
   "out": DIR,                           where to write transformers' own directories
   "vocab_size", "pad_id", "bos_id", "eos_id",
   "batches": {NAME: {"input_ids", "attention_mask", "position_ids"?}}}   (lists of lists)

(a) loads each Kiln directory with its architecture's from_pretrained, recording the loading info and
    every warning (transformers' logger and Python's warnings), and computes its logits on each batch;
(b) writes save_pretrained of randomly initialized tiny models under OUT:
      llama-gqa/      LlamaForCausalLM, 4 query heads sharing 2 key/value heads, tied head, rope_theta 5000
      llama-untied/   LlamaForCausalLM, one key/value head, head_dim 16 ≠ hidden/heads, attention and MLP
                      biases, an untied lm_head
      gpt2/           GPT2LMHeadModel (tied)
      gpt2-base-old/  the same GPT-2 as the original OpenAI checkpoints store it: GPT2Model names (no
                      `transformer.` prefix, no lm_head) plus the attn.bias / attn.masked_bias buffers
    and computes their logits on each batch.
The last stdout line is the JSON report: {"kiln": {NAME: {"info", "warnings", "config", "tied", "logits"}},
"hf": {NAME: {"logits"}}}, logits as {BATCH: nested lists [batch, seq, vocab]}.
"""

import json
import logging
import os
import sys
import warnings

import torch
import transformers
from safetensors.torch import save_file
from transformers import GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM

ARCHITECTURES = {"LlamaForCausalLM": LlamaForCausalLM, "GPT2LMHeadModel": GPT2LMHeadModel}


class Recorder(logging.Handler):
    def __init__(self):
        super().__init__(level=logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def randomize(model, seed):
    """Every parameter random, so a weight read into the wrong place cannot go unnoticed."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "norm" in name or ".ln_" in name:
                p.copy_((1 if name.endswith("weight") else 0) + 0.2 * torch.randn(p.shape, generator=g))
            else:
                p.copy_(0.2 * torch.randn(p.shape, generator=g))
    return model.eval()


def logits_on(model, batches):
    out = {}
    with torch.no_grad():
        for name, b in batches.items():
            kwargs = {"input_ids": torch.tensor(b["input_ids"]), "attention_mask": torch.tensor(b["attention_mask"])}
            if "position_ids" in b:
                kwargs["position_ids"] = torch.tensor(b["position_ids"])
            out[name] = model(**kwargs).logits.tolist()
    return out


def load_kiln_dir(path, batches):
    with open(os.path.join(path, "config.json")) as f:
        arch = json.load(f)["architectures"][0]
    recorder = Recorder()
    logger = transformers.logging.get_logger("transformers")
    logger.addHandler(recorder)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model, info = ARCHITECTURES[arch].from_pretrained(path, output_loading_info=True)
    finally:
        logger.removeHandler(recorder)
    model.eval()
    tied = model.lm_head.weight.data_ptr() == model.get_input_embeddings().weight.data_ptr()
    return {
        "info": {key: list(map(str, value)) for key, value in info.items()},
        "warnings": recorder.messages + [str(w.message) for w in caught],
        "config": {
            "tie_word_embeddings": model.config.tie_word_embeddings,
            "num_key_value_heads": getattr(model.config, "num_key_value_heads", None),
        },
        "tied": tied,
        "logits": logits_on(model, batches),
    }


def transformers_models(job):
    ids = dict(vocab_size=job["vocab_size"], pad_token_id=job["pad_id"], bos_token_id=job["bos_id"], eos_token_id=job["eos_id"])
    llama = dict(
        hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_attention_heads=4, max_position_embeddings=64, rms_norm_eps=1e-5
    )
    return {
        "llama-gqa": randomize(
            LlamaForCausalLM(
                LlamaConfig(
                    **ids,
                    **llama,
                    num_key_value_heads=2,
                    tie_word_embeddings=True,
                    rope_parameters={"rope_type": "default", "rope_theta": 5000.0},
                )
            ),
            1,
        ),
        "llama-untied": randomize(
            LlamaForCausalLM(
                LlamaConfig(
                    **ids,
                    **llama,
                    num_key_value_heads=1,
                    head_dim=16,
                    attention_bias=True,
                    mlp_bias=True,
                    tie_word_embeddings=False,
                )
            ),
            2,
        ),
        "gpt2": randomize(GPT2LMHeadModel(GPT2Config(**ids, n_embd=32, n_layer=2, n_head=4, n_positions=64)), 3),
    }


def save_old_gpt2(model, path):
    """GPT2Model's names and the causal-mask buffers older transformers releases saved with each block."""
    model.config.save_pretrained(path)
    n = model.config.n_positions
    tensors = {
        name[len("transformer.") :]: p.detach().contiguous() for name, p in model.named_parameters() if name.startswith("transformer.")
    }
    for i in range(model.config.n_layer):
        tensors[f"h.{i}.attn.bias"] = torch.tril(torch.ones(n, n, dtype=torch.uint8)).view(1, 1, n, n).float()
        tensors[f"h.{i}.attn.masked_bias"] = torch.tensor(-1e4)
    save_file(tensors, os.path.join(path, "model.safetensors"), metadata={"format": "pt"})


def main():
    job = json.load(sys.stdin)
    transformers.logging.set_verbosity_warning()
    transformers.logging.disable_progress_bar()
    torch.manual_seed(0)
    batches = job["batches"]
    report = {"kiln": {}, "hf": {}}
    for name, path in job["kiln"].items():
        report["kiln"][name] = load_kiln_dir(path, batches)
    for name, model in transformers_models(job).items():
        model.save_pretrained(os.path.join(job["out"], name))
        report["hf"][name] = {"logits": logits_on(model, batches)}
        if name == "gpt2":
            save_old_gpt2(model, os.path.join(job["out"], "gpt2-base-old"))
            report["hf"]["gpt2-base-old"] = report["hf"][name]
    print(json.dumps(report))


if __name__ == "__main__":
    main()
