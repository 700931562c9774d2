# Peer: what a Python user runs today to train a small decoder. Hugging Face LlamaForCausalLM training
# steps on the CPU with PyTorch 2.13 (AdamW; f32, or --precision bf16: the forward and loss under torch's CPU
# autocast, as a user turns on mixed precision there), eager and torch.compile, on the shapes of Kiln's
# `bench train --task causal-lm --preset llama-small`: the same config (vocabulary 8192, width 256, 4
# layers, 4 query and 2 key/value heads, SwiGLU of 688, tied embeddings, rotary positions), batch 32 of
# 128 uniform random tokens with no padding, the next-token loss over every position (HF shifts the labels
# inside the model, as Kiln shifts inside its compiled step). --config reads a config.json instead
# (e.g. the one `kiln train --task causal-lm` wrote) for other shapes.
# Prints one JSON line per mode, with resident memory as Linux counts it (/proc/self/status): once the model and
# optimizer were made, the peak through the warm-up steps, and the peak over the timed steps alone (the
# high-water mark reset after the warm-up by writing 5 to /proc/self/clear_refs); run one mode per process.
# Usage: .venv/bin/python bench/peers/hf_llama_causal_cpu.py [--threads 2] [--modes eager,compile] [--config FILE]
#        [--batch 32] [--seq 128] [--steps 5] [--attn sdpa|eager] [--precision f32|bf16]
import argparse, gc, json, re, time
import torch
from transformers import LlamaConfig, LlamaForCausalLM

p = argparse.ArgumentParser()
p.add_argument("--threads", type=int, default=2)
p.add_argument("--modes", default="eager,compile")
p.add_argument("--config", help="a LlamaForCausalLM config.json (default: Kiln's llama-small preset with 8192 tokens)")
p.add_argument("--batch", type=int, default=32)
p.add_argument("--seq", type=int, default=128)
p.add_argument("--steps", type=int, default=5)
p.add_argument("--warmup", type=int, default=2)
p.add_argument("--attn", default="sdpa", help="transformers' attn_implementation: sdpa (torch's scaled_dot_product_attention) or eager")
p.add_argument("--precision", default="f32", choices=["f32", "bf16"])
a = p.parse_args()
torch.set_num_threads(a.threads)
B, T = a.batch, a.seq
if a.config:
    with open(a.config) as f:
        cfg = LlamaConfig(**{k: v for k, v in json.load(f).items() if k not in ("architectures", "transformers_version", "dtype")})
else:
    # Kiln's llama-small (src/models/llama/config.ts), with the vocabulary the bench uses.
    cfg = LlamaConfig(vocab_size=8192, hidden_size=256, intermediate_size=688, num_hidden_layers=4, num_attention_heads=4,
                      num_key_value_heads=2, head_dim=64, hidden_act="silu", max_position_embeddings=T, rms_norm_eps=1e-5,
                      rope_parameters={"rope_type": "default", "rope_theta": 10000.0}, tie_word_embeddings=True,
                      attention_bias=False, mlp_bias=False, attention_dropout=0.0, initializer_range=0.02,
                      bos_token_id=0, eos_token_id=1, pad_token_id=3)
V = cfg.vocab_size
g = torch.Generator().manual_seed(0)
ids = torch.randint(5, V, (B, T), generator=g)
mask = torch.ones(B, T, dtype=torch.long)

def status_mb(field):
    with open("/proc/self/status") as status:
        return round(int(re.search(rf"^{field}:\s+(\d+) kB", status.read(), re.M).group(1)) / 1024)

def loss_fn(model, ids, mask):
    return model(input_ids=ids, attention_mask=mask, labels=ids).loss

for mode in a.modes.split(","):
    torch.manual_seed(0)
    cfg._attn_implementation = a.attn
    model = LlamaForCausalLM(cfg).train()
    n = sum(p.numel() for p in model.parameters())
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.01)
    f = torch.compile(loss_fn) if mode == "compile" else loss_fn
    def step():
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=a.precision == "bf16"):
            loss = f(model, ids, mask)
        loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)
        return loss.item()
    setup_rss = status_mb("VmRSS")
    t0 = time.perf_counter()
    for _ in range(a.warmup): step()
    warm = time.perf_counter() - t0
    warmup_peak = status_mb("VmHWM")
    gc.collect()
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")
    ts = []
    for _ in range(a.steps):
        t1 = time.perf_counter(); step(); ts.append(time.perf_counter() - t1)
    ts.sort(); med = ts[len(ts) // 2]
    print(json.dumps({"peer": "hf-torch", "model": "LlamaForCausalLM", "task": "causal-lm", "torch": torch.__version__,
                      "mode": mode, "attn_implementation": model.config._attn_implementation, "precision": a.precision,
                      "threads": torch.get_num_threads(), "batch": B, "seq": T, "vocab": V, "params": n, "step_s": med,
                      "tokens_per_s": B * T / med, "tokens_per_second": B * T / med, "warmup_s": warm,
                      "rss_setup_mb": setup_rss, "warmup_peak_rss_mb": warmup_peak,
                      "peak_rss_mb": status_mb("VmHWM")}), flush=True)
