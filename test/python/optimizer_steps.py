"""Reference optimizer steps: transformers' Adafactor (torch, CPU) and optax's lion (jax, CPU).

Reads a JSON job on stdin: {"params": {name: {"shape", "data"}}, "grads": [{name: data}, ...] (one per
step), "runs": [{"id", "kind": "adafactor" | "lion", ...}]} and, for each run, applies one update per
step from the same f32 parameters. Adafactor runs take "kwargs" for transformers.optimization.Adafactor,
"decay" (the names in the weight-decay group, the rest in a group with weight_decay 0, as transformers'
Trainer groups them) and optionally "schedule" ({"peak", "warmup", "total"}: a linear warmup and decay
set as the group's lr before each step). Lion runs take "lr" or "schedule", "b1", "b2", "weight_decay"
and "mask" (the names that decay, or null for all). Prints one JSON line: {id: {"params": [{name:
data} after each step], "state": {state name: data} after the last}}, state names as Kiln's
optimizer.safetensors has them ("exp_avg_sq_row.<name>", ..., "exp_avg.<name>").
"""

import json
import os
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax
import jax.numpy as jnp
import numpy as np
import optax
import torch
from transformers.optimization import Adafactor

torch.set_num_threads(1)
job = json.load(sys.stdin)
names = list(job["params"])


def initial(name):
    p = job["params"][name]
    return np.asarray(p["data"], dtype=np.float32).reshape(p["shape"])


def grad(step, name):
    return np.asarray(job["grads"][step][name], dtype=np.float32).reshape(job["params"][name]["shape"])


def flat(x):
    return np.asarray(x, dtype=np.float32).reshape(-1).tolist()


def linear_schedule(s, count):
    # Kiln's linearWarmupDecay (transformers' get_linear_schedule_with_warmup) at `count` updates applied.
    peak, warmup, total = s["peak"], s["warmup"], s["total"]
    if count < warmup:
        return peak * count / warmup
    return peak * max((total - count) / max(1, total - warmup), 0.0)


def run_adafactor(r):
    params = {n: torch.nn.Parameter(torch.from_numpy(initial(n).copy())) for n in names}
    decay = set(r["decay"])
    wd = r["kwargs"].get("weight_decay", 0.0)
    kwargs = {k: v for k, v in r["kwargs"].items() if k != "weight_decay"}
    if "eps" in kwargs:
        kwargs["eps"] = tuple(kwargs["eps"])
    if "schedule" in r:
        kwargs["lr"] = linear_schedule(r["schedule"], 0)
    groups = [
        {"params": [params[n] for n in names if n in decay], "weight_decay": wd},
        {"params": [params[n] for n in names if n not in decay], "weight_decay": 0.0},
    ]
    opt = Adafactor([g for g in groups if g["params"]], **kwargs)
    history = []
    for step in range(len(job["grads"])):
        if "schedule" in r:
            for g in opt.param_groups:
                g["lr"] = linear_schedule(r["schedule"], step)
        for n in names:
            params[n].grad = torch.from_numpy(grad(step, n).copy())
        opt.step()
        history.append({n: flat(params[n].detach().numpy()) for n in names})
    state = {}
    for n in names:
        for key, value in opt.state[params[n]].items():
            if key in ("exp_avg", "exp_avg_sq", "exp_avg_sq_row", "exp_avg_sq_col"):
                state[f"{key}.{n}"] = flat(value.numpy())
    return {"params": history, "state": state}


def run_lion(r):
    params = {n: jnp.asarray(initial(n)) for n in names}
    if "schedule" in r:
        s = r["schedule"]
        peak, warmup, total = s["peak"], s["warmup"], s["total"]

        def lr(count):
            # The same f32 arithmetic as Kiln's linearWarmupDecay.
            c = jnp.asarray(count, jnp.float32)
            warm = c / warmup
            dec = jnp.maximum((total - c) / max(1, total - warmup), 0.0)
            return jnp.where(c < warmup, warm, dec) * peak

    else:
        lr = r["lr"]
    mask = None if r["mask"] is None else {n: n in set(r["mask"]) for n in names}
    opt = optax.lion(lr, b1=r["b1"], b2=r["b2"], weight_decay=r["weight_decay"], mask=mask)
    state = opt.init(params)
    history = []
    for step in range(len(job["grads"])):
        g = {n: jnp.asarray(grad(step, n)) for n in names}
        updates, state = opt.update(g, state, params)
        params = optax.apply_updates(params, updates)
        history.append({n: flat(params[n]) for n in names})
    lion_state = state[0]
    return {"params": history, "state": {f"exp_avg.{n}": flat(lion_state.mu[n]) for n in names}}


out = {}
for r in job["runs"]:
    out[r["id"]] = run_adafactor(r) if r["kind"] == "adafactor" else run_lion(r)
print(json.dumps({"versions": {"transformers": __import__("transformers").__version__, "torch": torch.__version__,
                               "optax": optax.__version__, "jax": jax.__version__}, "runs": out}))
