# What the PyTorch contenders of the device check share: the device, the precision settings and the
# timed training session (AdamW, optional bf16 autocast, eager or torch.compile of the loss).
import argparse

import torch


def parse_contender_args(shapes, preset, vocab):
    """The flags every PyTorch training contender takes; returns them and the device, set up."""
    p = argparse.ArgumentParser()
    p.add_argument("--preset", default=preset, choices=sorted(shapes))
    p.add_argument("--vocab", type=int, default=vocab)
    p.add_argument("--seq", type=int, default=128)
    p.add_argument("--precision", default="32", choices=["32", "bf16-mixed"])
    p.add_argument("--mode", default="eager", choices=["eager", "compile"])
    p.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    p.add_argument("--threads", type=int, default=0)
    a = p.parse_args()
    if a.threads:
        torch.set_num_threads(a.threads)
    return a, setup(a.device, a.precision)


def setup(device, precision):
    dev = torch.device("cuda" if device == "cuda" else "cpu")
    # f32 means f32: no TF32 products (Kiln asks XLA for HIGHEST precision on f32 dots).
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    # One static graph per batch size: a second batch would otherwise be compiled with dynamic shapes.
    torch._dynamo.config.automatic_dynamic_shapes = False
    return dev


def session_maker(model, loss_fn, make_batch, dev, precision, mode):
    """One model and optimizer for every batch size; each batch size gets its own inputs (and compiled graph)."""
    model.to(dev).train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.01, **({"fused": True} if dev.type == "cuda" else {}))
    f = torch.compile(loss_fn) if mode == "compile" else loss_fn
    bf16 = precision == "bf16-mixed"

    def make(batch):
        inputs = make_batch(batch)

        def run(n):
            for _ in range(n):
                with torch.autocast(dev.type, dtype=torch.bfloat16, enabled=bf16):
                    loss = f(model, *inputs)
                loss.backward()
                opt.step()
                opt.zero_grad(set_to_none=True)
            return loss.item()  # waits for the device

        return run

    return make


def peak_bytes(dev):
    return (lambda: torch.cuda.max_memory_allocated()) if dev.type == "cuda" else (lambda: None)
