# Peer of `npm run bench -- train --task sequence-classification`: the fine-tuning loop a transformers user
# writes (BertForSequenceClassification of all-MiniLM-L6-v2's shapes, random init, AdamW, f32, dropout as
# the config says), on the batches of FILE in their order: each batch padded to its own length (dynamic
# padding, as DataCollatorWithPadding(pad_to_multiple_of=32) pads), padding rows labelled -100. Eager or
# torch.compile (which recompiles once per new length, then treats lengths as dynamic). A warm-up pass runs
# every batch (each length compiled and past its first steps, as in a run of many epochs), then the timed
# pass runs every batch again. One JSON line per mode.
# Usage: .venv/bin/python bench/peers/hf_classify_bench_cpu.py FILE [--modes eager,compile] [--threads 2]
import argparse, json, time
import torch
from transformers import BertConfig, BertForSequenceClassification

p = argparse.ArgumentParser()
p.add_argument("file")
p.add_argument("--modes", default="eager,compile")
p.add_argument("--threads", type=int, default=2)
a = p.parse_args()
torch.set_num_threads(a.threads)
with open(a.file) as f:
    spec = json.load(f)
B = spec["batch"]
batches = []
for b in spec["batches"]:
    L = b["length"]
    batches.append((torch.tensor(b["input_ids"]).view(B, L), torch.tensor(b["attention_mask"]).view(B, L), torch.tensor(b["labels"])))
real = sum(int(m.sum()) for _, m, _ in batches)
padded = sum(ids.numel() for ids, _, _ in batches)
cfg = BertConfig(vocab_size=spec["vocab"], hidden_size=384, num_hidden_layers=6, num_attention_heads=12, intermediate_size=1536,
                 max_position_embeddings=512, type_vocab_size=2, num_labels=2, pad_token_id=0)


def loss_fn(model, ids, mask, labels):
    logits = model(input_ids=ids, attention_mask=mask).logits
    return torch.nn.functional.cross_entropy(logits, labels, ignore_index=-100)


for mode in a.modes.split(","):
    torch.manual_seed(0)
    model = BertForSequenceClassification(cfg).train()
    opt = torch.optim.AdamW(model.parameters(), lr=5e-5, weight_decay=0.01)
    f = torch.compile(loss_fn) if mode == "compile" else loss_fn

    def run(items):
        for ids, mask, labels in items:
            loss = f(model, ids, mask, labels)
            loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)
        return loss.item()

    t0 = time.perf_counter(); run(batches); warm = time.perf_counter() - t0
    t1 = time.perf_counter(); loss = run(batches); s = time.perf_counter() - t1
    print(json.dumps({"contender": f"torch-{mode}", "torch": torch.__version__, "threads": torch.get_num_threads(),
                      "batches": len(batches), "seconds": round(s, 3), "tokens_per_s": round(real / s),
                      "padded_tokens_per_s": round(padded / s), "warmup_s": round(warm, 1), "loss": round(loss, 4)}), flush=True)
