# Peer of the device check's generation section (bench/device/generation.ts): transformers' generate
# (greedy, KV cache, eager PyTorch, f32 with TF32 off) on the model directory Kiln wrote, from the same
# prompt ids, on the GPU (--device cuda) or the CPU. As bench/peers/hf_generate_cpu.py: prefill is timed as
# generate(max_new_tokens=1), decode as generate(max_new_tokens=N) minus that, so decode tokens/s =
# batch * (N - 1) / decode seconds. Stopping at the end-of-sequence token is off.
# Prints one JSON line per prompts file (one process for every batch size: the model loads once): the
# timings (medians over --repeats) and the generated ids.
# Usage: python3 gpu_hf_generate.py --model DIR --prompts FILE.json[,FILE.json...] [--device cuda|cpu]
#                                   [--new-tokens 64] [--repeats 3]
import argparse, json, statistics, time
import torch
from transformers import AutoModelForCausalLM

p = argparse.ArgumentParser()
p.add_argument("--model", required=True)
p.add_argument("--prompts", required=True, help="JSON files, comma-separated: each a list of equal-length lists of token ids")
p.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
p.add_argument("--new-tokens", type=int, default=64)
p.add_argument("--repeats", type=int, default=3)
a = p.parse_args()
torch.backends.cuda.matmul.allow_tf32 = False
torch.set_float32_matmul_precision("highest")
cuda = a.device == "cuda"

model = AutoModelForCausalLM.from_pretrained(a.model, dtype=torch.float32).to(a.device).eval()
model.generation_config.eos_token_id = None
pad = model.config.pad_token_id if model.config.pad_token_id is not None else 0


def run(ids, n):
    mask = torch.ones_like(ids)
    if cuda:
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    with torch.inference_mode():
        out = model.generate(input_ids=ids, attention_mask=mask, do_sample=False, max_new_tokens=n, pad_token_id=pad,
                             use_cache=True)
    if cuda:
        torch.cuda.synchronize()
    return time.perf_counter() - t0, out


for path in a.prompts.split(","):
    ids = torch.tensor(json.load(open(path)), dtype=torch.long, device=a.device)
    run(ids, 2)  # warm-up: first-call allocations and kernel selection
    prefill, total = [], []
    for _ in range(a.repeats):
        prefill.append(run(ids, 1)[0])
        t, out = run(ids, a.new_tokens)
        total.append(t)
    pre, tot = statistics.median(prefill), statistics.median(total)
    decode = max(tot - pre, 1e-9)
    batch = ids.shape[0]
    print(json.dumps({
        "peer": "transformers.generate", "torch": torch.__version__, "device": torch.cuda.get_device_name() if cuda else "cpu",
        "batch": batch, "prompt_tokens": ids.shape[1], "new_tokens": a.new_tokens, "prefill_seconds": pre,
        "generate_seconds": tot, "decode_seconds": decode, "decode_tokens_per_second": batch * (a.new_tokens - 1) / decode,
        "token_ids": out[:, ids.shape[1]:].tolist(),
    }), flush=True)
