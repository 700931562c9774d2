# Contender of the device check's throughput section: the RoBERTa MLM training step written in JAX and
# compiled whole by XLA (jax.jit, optax AdamW, donated state), f32 or bf16 compute (bf16-mixed: f32 master
# weights, bf16 products), on the GPU (--device cuda) or the CPU. After ../shared/peers/jax_mlm_cpu.py, with
# any batch size and width. The vocabulary head runs on every position, as Hugging Face's does; 15% of
# positions are labelled. f32 products ask for "highest" precision (no TF32), as Kiln's do.
# Speaks bench/peers/gpu_worker.py's protocol on stdin/stdout.
# Usage: python3 gpu_jax_mlm.py --preset roberta-base|mlm-tiny --vocab 32000 --seq 128 --precision 32|bf16-mixed
#                               [--device cuda|cpu]
import argparse, math, os

p = argparse.ArgumentParser()
p.add_argument("--preset", default="roberta-base", choices=["roberta-base", "mlm-tiny"])
p.add_argument("--vocab", type=int, default=32000)
p.add_argument("--seq", type=int, default=128)
p.add_argument("--precision", default="32", choices=["32", "bf16-mixed"])
p.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
a = p.parse_args()
os.environ["JAX_PLATFORMS"] = a.device
# Allocate as used, not 75% of the GPU up front: the other contenders of a round share the device.
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
import jax, jax.numpy as jnp, optax
from gpu_worker import serve

if a.precision == "32":
    jax.config.update("jax_default_matmul_precision", "highest")
H, L, A, I = {"roberta-base": (768, 12, 12, 3072), "mlm-tiny": (32, 2, 2, 64)}[a.preset]
V, T = a.vocab, a.seq
cdt = jnp.bfloat16 if a.precision == "bf16-mixed" else jnp.float32


def init(key):
    ks = iter(jax.random.split(key, 8 + 8 * L))
    n = lambda *s: 0.02 * jax.random.normal(next(ks), s, jnp.float32)
    ln = lambda: {"g": jnp.ones(H), "b": jnp.zeros(H)}
    layers = [{"qkv": n(H, 3 * H), "qkv_b": jnp.zeros(3 * H), "o": n(H, H), "o_b": jnp.zeros(H), "ln1": ln(),
               "f1": n(H, I), "f1_b": jnp.zeros(I), "f2": n(I, H), "f2_b": jnp.zeros(H), "ln2": ln()} for _ in range(L)]
    return {"tok": n(V, H), "pos": n(T + 2, H), "ln": ln(), "layers": layers,
            "dense": n(H, H), "dense_b": jnp.zeros(H), "hln": ln(), "bias": jnp.zeros(V)}


def layer_norm(x, p):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) * jax.lax.rsqrt(v + 1e-5) * p["g"] + p["b"]


def dropout(x, key, rate=0.1):
    return jnp.where(jax.random.bernoulli(key, 1 - rate, x.shape), x / (1 - rate), 0).astype(x.dtype)


def loss_fn(params, ids, mask, labels, key):
    B = ids.shape[0]
    c = lambda w: w.astype(cdt)
    x = layer_norm(params["tok"][ids] + params["pos"][jnp.arange(T) + 2], params["ln"])
    bias = (1.0 - mask[:, None, None, :]) * -1e9
    keys = jax.random.split(key, 3 * L)
    for i, lp in enumerate(params["layers"]):
        qkv = (c(x) @ c(lp["qkv"])).astype(jnp.float32) + lp["qkv_b"]
        q, k, v = qkv.reshape(B, T, 3, A, H // A).transpose(2, 0, 3, 1, 4)
        att = (c(q) @ c(k).swapaxes(-1, -2)).astype(jnp.float32) / math.sqrt(H // A) + bias
        att = dropout(jax.nn.softmax(att, -1), keys[3 * i])
        y = (c(att) @ c(v)).astype(jnp.float32).transpose(0, 2, 1, 3).reshape(B, T, H)
        x = layer_norm(x + dropout((c(y) @ c(lp["o"])).astype(jnp.float32) + lp["o_b"], keys[3 * i + 1]), lp["ln1"])
        h = jax.nn.gelu((c(x) @ c(lp["f1"])).astype(jnp.float32) + lp["f1_b"], approximate=False)
        x = layer_norm(x + dropout((c(h) @ c(lp["f2"])).astype(jnp.float32) + lp["f2_b"], keys[3 * i + 2]), lp["ln2"])
    h = layer_norm(jax.nn.gelu((c(x) @ c(params["dense"])).astype(jnp.float32) + params["dense_b"], approximate=False), params["hln"])
    logits = (c(h) @ c(params["tok"]).T).astype(jnp.float32) + params["bias"]
    valid = labels != -100
    nll = -jnp.take_along_axis(jax.nn.log_softmax(logits, -1), jnp.where(valid, labels, 0)[..., None], -1)[..., 0]
    return jnp.sum(nll * valid) / jnp.maximum(valid.sum(), 1)


opt = optax.adamw(1e-4, weight_decay=0.01)


def step_fn(params, state, ids, mask, labels, key):
    loss, grads = jax.value_and_grad(loss_fn)(params, ids, mask, labels, key)
    updates, state = opt.update(grads, state, params)
    return optax.apply_updates(params, updates), state, loss


train_step = jax.jit(step_fn, donate_argnums=(0, 1))
carry = {"params": init(jax.random.PRNGKey(0))}
carry["state"] = opt.init(carry["params"])
n_params = sum(x.size for x in jax.tree_util.tree_leaves(carry["params"]))
device = jax.devices()[0]


def make(b):
    ids = jax.random.randint(jax.random.PRNGKey(b), (b, T), 5, V)
    mask = jnp.ones((b, T), jnp.float32)
    labels = jnp.where(jax.random.uniform(jax.random.PRNGKey(b + 1), (b, T)) < 0.15, ids, -100)
    counter = [0]

    def run(n):
        for _ in range(n):
            counter[0] += 1
            carry["params"], carry["state"], loss = train_step(carry["params"], carry["state"], ids, mask, labels,
                                                               jax.random.PRNGKey(counter[0]))
        return float(loss)  # waits for the device

    return run


def peak_bytes():
    stats = device.memory_stats() or {}
    return stats.get("peak_bytes_in_use")


serve("jax", make, T, n_params, peak_bytes)
