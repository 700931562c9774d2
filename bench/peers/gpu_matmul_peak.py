# The matmul peaks the device check's MFU figures are measured against, in the same run: the best rate
# of an N×N×N bf16 product and of an f32 one (TF32 off: true f32, as Kiln's f32 products ask for) with
# PyTorch, on the GPU (--device cuda) or the CPU. Prints one JSON line of TFLOP/s.
# Usage: python3 gpu_matmul_peak.py [--device cuda|cpu] [--n 8192] [--repeats 10]
import argparse, json, time
import torch

p = argparse.ArgumentParser()
p.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
p.add_argument("--n", type=int, default=8192)
p.add_argument("--repeats", type=int, default=10)
a = p.parse_args()
torch.backends.cuda.matmul.allow_tf32 = False
torch.set_float32_matmul_precision("highest")
cuda = a.device == "cuda"


def sync():
    if cuda:
        torch.cuda.synchronize()


def peak(dtype):
    g = torch.Generator(device=a.device).manual_seed(0)
    x = torch.randn(a.n, a.n, device=a.device, dtype=dtype, generator=g)
    y = torch.randn(a.n, a.n, device=a.device, dtype=dtype, generator=g)
    for _ in range(3):
        x @ y
    sync()
    best = 0.0
    for _ in range(a.repeats):
        t0 = time.perf_counter()
        x @ y
        sync()
        best = max(best, 2 * a.n ** 3 / (time.perf_counter() - t0) / 1e12)
    return best


print(json.dumps({"bench": "matmul-peak", "device": torch.cuda.get_device_name() if cuda else "cpu", "torch": torch.__version__,
                  "n": a.n, "bf16_tflops": round(peak(torch.bfloat16), 2), "f32_tflops": round(peak(torch.float32), 2)}))
