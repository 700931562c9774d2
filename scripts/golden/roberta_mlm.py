# Golden values for Kiln's RoBERTa: an independent PyTorch implementation of RobertaForMaskedLM's
# forward pass and MLM loss (written from the architecture, not from Kiln's code), run once on a tiny
# config with random weights. Writes test/fixtures/roberta-tiny.safetensors (weights under Hugging
# Face names, plus inputs and expected outputs) and test/fixtures/roberta-tiny.json (the config).
#
# Usage (Debian's PyTorch): /usr/bin/python3 scripts/golden/roberta_mlm.py
import json, math, os, struct
import numpy as np
import torch

torch.manual_seed(0)
C = dict(model_type="roberta", vocab_size=40, hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
         intermediate_size=32, hidden_act="gelu", hidden_dropout_prob=0.1, attention_probs_dropout_prob=0.1,
         max_position_embeddings=12, type_vocab_size=1, layer_norm_eps=1e-5, initializer_range=0.02,
         pad_token_id=3, bos_token_id=0, eos_token_id=1)
V, H, L, A, I, P, E = (C[k] for k in ("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads",
                                      "intermediate_size", "max_position_embeddings", "layer_norm_eps"))
D = torch.float64

W = {}
def param(name, *shape, scale=0.3, offset=0.0):
    W[name] = (torch.randn(*shape, dtype=D) * scale + offset)
    return W[name]

param("roberta.embeddings.word_embeddings.weight", V, H, scale=1.0)
param("roberta.embeddings.position_embeddings.weight", P, H)
param("roberta.embeddings.token_type_embeddings.weight", 1, H)
param("roberta.embeddings.LayerNorm.weight", H, scale=0.1, offset=1.0)
param("roberta.embeddings.LayerNorm.bias", H, scale=0.1)
for l in range(L):
    p = f"roberta.encoder.layer.{l}."
    for n in ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"):
        param(p + n + ".weight", H, H); param(p + n + ".bias", H, scale=0.1)
    param(p + "attention.output.LayerNorm.weight", H, scale=0.1, offset=1.0); param(p + "attention.output.LayerNorm.bias", H, scale=0.1)
    param(p + "intermediate.dense.weight", I, H); param(p + "intermediate.dense.bias", I, scale=0.1)
    param(p + "output.dense.weight", H, I); param(p + "output.dense.bias", H, scale=0.1)
    param(p + "output.LayerNorm.weight", H, scale=0.1, offset=1.0); param(p + "output.LayerNorm.bias", H, scale=0.1)
param("lm_head.dense.weight", H, H); param("lm_head.dense.bias", H, scale=0.1)
param("lm_head.layer_norm.weight", H, scale=0.1, offset=1.0); param("lm_head.layer_norm.bias", H, scale=0.1)
param("lm_head.bias", V, scale=0.1)

def linear(x, name): return x @ W[name + ".weight"].T + W[name + ".bias"]
def layer_norm(x, name):
    mu = x.mean(-1, keepdim=True); var = ((x - mu) ** 2).mean(-1, keepdim=True)
    return (x - mu) / torch.sqrt(var + E) * W[name + ".weight"] + W[name + ".bias"]
def gelu(x): return 0.5 * x * (1 + torch.erf(x / math.sqrt(2)))

pad = C["pad_token_id"]
ids = torch.tensor([[0, 7, 12, 9, 30, 4, 18, 1], [0, 25, 6, 1, pad, pad, pad, pad]])
mask = (ids != pad).long()
labels = torch.full_like(ids, -100)
labels[0, 2] = 12; labels[0, 5] = 4; labels[1, 1] = 25; labels[1, 2] = 33

# RoBERTa position ids: real tokens count from pad + 1, padding stays at pad.
pos = torch.cumsum(mask, 1) * mask + pad
x = W["roberta.embeddings.word_embeddings.weight"][ids] + W["roberta.embeddings.position_embeddings.weight"][pos] \
    + W["roberta.embeddings.token_type_embeddings.weight"][0]
x = layer_norm(x, "roberta.embeddings.LayerNorm")
bias = (1.0 - mask[:, None, None, :].to(D)) * -1e9
B, T = ids.shape
for l in range(L):
    p = f"roberta.encoder.layer.{l}."
    split = lambda y: y.view(B, T, A, H // A).transpose(1, 2)
    q, k, v = (split(linear(x, p + "attention.self." + n)) for n in ("query", "key", "value"))
    probs = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(H // A) + bias, -1)
    ctx = (probs @ v).transpose(1, 2).reshape(B, T, H)
    x = layer_norm(linear(ctx, p + "attention.output.dense") + x, p + "attention.output.LayerNorm")
    ff = linear(gelu(linear(x, p + "intermediate.dense")), p + "output.dense")
    x = layer_norm(ff + x, p + "output.LayerNorm")
t = layer_norm(gelu(linear(x, "lm_head.dense")), "lm_head.layer_norm")
logits = t @ W["roberta.embeddings.word_embeddings.weight"].T + W["lm_head.bias"]
loss = torch.nn.functional.cross_entropy(logits.view(-1, V), labels.view(-1), ignore_index=-100)

out = {name: w.to(torch.float32).numpy() for name, w in W.items()}
out["test.input_ids"] = ids.to(torch.int32).numpy()
out["test.attention_mask"] = mask.to(torch.int32).numpy()
out["test.labels"] = labels.to(torch.int32).numpy()
out["test.logits"] = logits.to(torch.float32).numpy()
out["test.loss"] = loss.reshape(1).to(torch.float32).numpy()

def write_safetensors(path, tensors):
    names = sorted(tensors)
    header, offset, blobs = {}, 0, []
    for n in names:
        a = np.ascontiguousarray(tensors[n])
        code = {np.float32: "F32", np.int32: "I32"}[a.dtype.type]
        header[n] = {"dtype": code, "shape": list(a.shape), "data_offsets": [offset, offset + a.nbytes]}
        offset += a.nbytes; blobs.append(a.tobytes())
    h = json.dumps(header).encode(); h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h))); f.write(h); f.write(b"".join(blobs))

here = os.path.dirname(os.path.abspath(__file__))
fixtures = os.path.join(here, "..", "..", "test", "fixtures")
write_safetensors(os.path.join(fixtures, "roberta-tiny.safetensors"), out)
with open(os.path.join(fixtures, "roberta-tiny.json"), "w") as f:
    json.dump(C, f, indent=2); f.write("\n")
print("loss", float(loss))
