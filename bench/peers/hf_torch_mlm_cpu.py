# A copy of ../shared/peers/hf_torch_mlm_cpu.py with two changes: room for RoBERTa's position ids under
# transformers 5 (the original fails there with "index 130 is out of bounds": positions run from
# pad_token_id + 1 to pad_token_id + T, past its T + 2 rows), and --precision bf16 (torch's CPU autocast).
# Peer: what a Python user runs today. Hugging Face RobertaForMaskedLM training steps on the CPU with a current
# PyTorch (AdamW, f32), eager and torch.compile, same shapes as kiln's `bench train` presets.
# Prints one JSON line per mode. The model computes the vocabulary head on every position (as HF does);
# with --labelled-head it gathers the labelled positions first (the same work kiln does), for an equal-work ratio.
# Usage: python3 hf_torch_mlm_cpu.py [--threads 2] [--preset mlm-small|roberta-base] [--modes eager,compile] [--labelled-head]
# Needs: pip install torch==2.13.0 transformers   (the python machine has that torch's CPU build on disk)
import argparse, json, math, time
import torch
from transformers import RobertaConfig, RobertaForMaskedLM

p = argparse.ArgumentParser()
p.add_argument("--threads", type=int, default=2)
p.add_argument("--preset", default="mlm-small", choices=["mlm-small", "roberta-base"])
p.add_argument("--modes", default="eager,compile")
p.add_argument("--labelled-head", action="store_true")
p.add_argument("--steps", type=int, default=5)
p.add_argument("--precision", default="f32", choices=["f32", "bf16"])
a = p.parse_args()
torch.set_num_threads(a.threads)
if a.preset == "mlm-small":
    V, H, L, A, I, T, B = 8192, 256, 4, 4, 1024, 128, 32
else:
    V, H, L, A, I, T, B = 32000, 768, 12, 12, 3072, 128, 8
cfg = RobertaConfig(vocab_size=V, hidden_size=H, num_hidden_layers=L, num_attention_heads=A, intermediate_size=I,
                    max_position_embeddings=T + 4, type_vocab_size=1, pad_token_id=3, bos_token_id=0, eos_token_id=1)
g = torch.Generator().manual_seed(0)
ids = torch.randint(5, V, (B, T), generator=g)
mask = torch.ones(B, T, dtype=torch.long)
labels = torch.where(torch.rand(B, T, generator=g) < 0.15, ids, torch.full_like(ids, -100))

def loss_fn(model, ids, mask, labels):
    if not a.labelled_head:
        return model(input_ids=ids, attention_mask=mask, labels=labels).loss
    hidden = model.roberta(input_ids=ids, attention_mask=mask).last_hidden_state
    keep = labels.view(-1) != -100
    logits = model.lm_head(hidden.view(-1, H)[keep])
    return torch.nn.functional.cross_entropy(logits, labels.view(-1)[keep])

for mode in a.modes.split(","):
    torch.manual_seed(0)
    model = RobertaForMaskedLM(cfg).train()
    n = sum(p.numel() for p in model.parameters())
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.01)
    f = torch.compile(loss_fn) if mode == "compile" else loss_fn
    def step():
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=a.precision == "bf16"):
            loss = f(model, ids, mask, labels)
        loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)
        return loss.item()
    t0 = time.perf_counter()
    for _ in range(2): step()
    warm = time.perf_counter() - t0
    ts = []
    for _ in range(a.steps):
        t1 = time.perf_counter(); step(); ts.append(time.perf_counter() - t1)
    ts.sort(); med = ts[len(ts) // 2]
    print(json.dumps({"peer": "hf-torch", "torch": torch.__version__, "mode": mode, "preset": a.preset,
                      "labelled_head": a.labelled_head, "precision": a.precision, "threads": torch.get_num_threads(), "params": n,
                      "step_s": med, "tokens_per_s": B * T / med, "warmup_s": warm}), flush=True)
