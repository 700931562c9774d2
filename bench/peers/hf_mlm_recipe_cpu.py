# The masked-LM recipe in PyTorch: Hugging Face RobertaForMaskedLM trained on the quickstart's corpus and
# tokenizer, to tell what the model and recipe do apart from what Kiln does. It reports eval masked accuracy
# as HF's run_mlm counts it (every selected position) and at [MASK] positions alone, then the rank of the
# right word in the quickstart's fill-mask sentences. --start picks the starting values as Kiln's
# --position-init does (normal, sinusoidal, local-attention: src/models/local-attention-init.ts).
# On SOTU, normal and sinusoidal starts stay at the most frequent piece on [MASK] positions (5.3%) for
# thousands of steps; the local-attention start reaches 21.7% there (27.4% HF-style) in 1,000 steps.
# Usage (after `npm run main` made runs/sotu):
#   .venv/bin/python bench/peers/hf_mlm_recipe_cpu.py --corpus runs/sotu/sotu.txt \
#       --tokenizer runs/sotu/tokenizer-2048/tokenizer.json [--start local-attention] [--steps 1000] [--lr 1e-3]
#       [--prenorm] [--all-mask] [--seq 128 --batch 16] [--heads 4] [--dropout 0.1] [--threads 2]
import argparse, json, math, time
import numpy as np
import torch
from tokenizers import Tokenizer
from transformers import RobertaConfig, RobertaForMaskedLM, RobertaPreLayerNormConfig, RobertaPreLayerNormForMaskedLM

p = argparse.ArgumentParser()
p.add_argument("--corpus", required=True)
p.add_argument("--tokenizer", required=True)
p.add_argument("--start", default="local-attention", choices=["normal", "sinusoidal", "local-attention"])
p.add_argument("--prenorm", action="store_true", help="RobertaPreLayerNorm instead of RoBERTa's post-LN blocks")
p.add_argument("--all-mask", action="store_true", help="every selected token becomes [MASK] (no 10%% random / 10%% kept)")
p.add_argument("--hidden", type=int, default=256)
p.add_argument("--layers", type=int, default=2)
p.add_argument("--heads", type=int, default=4)
p.add_argument("--seq", type=int, default=128)
p.add_argument("--batch", type=int, default=16)
p.add_argument("--lr", type=float, default=1e-3)
p.add_argument("--steps", type=int, default=1000)
p.add_argument("--every", type=int, default=250)
p.add_argument("--dropout", type=float, default=0.1)
p.add_argument("--threads", type=int, default=2)
p.add_argument("--seed", type=int, default=0)
a = p.parse_args()
torch.set_num_threads(a.threads)
torch.manual_seed(a.seed)
rng = np.random.default_rng(a.seed)

tok = Tokenizer.from_file(a.tokenizer)
V = tok.get_vocab_size()
MASK, CLS, SEP, PAD = (tok.token_to_id(t) for t in ("[MASK]", "[CLS]", "[SEP]", "<pad>"))
lines = open(a.corpus, encoding="utf8").read().splitlines()
ids = np.concatenate([np.array(e.ids + [SEP], dtype=np.int64) for e in tok.encode_batch(lines, add_special_tokens=False)])
n = len(ids) // (a.seq - 2)
chunks = ids[: n * (a.seq - 2)].reshape(n, a.seq - 2)
chunks = np.concatenate([np.full((n, 1), CLS), chunks, np.full((n, 1), SEP)], 1)
perm = rng.permutation(n)
val, train = chunks[perm[: int(n * 0.03)]], chunks[perm[int(n * 0.03) :]]


def mask(x, g):
    """15% of the non-special tokens selected; 80% of them [MASK], 10% a random piece, 10% kept (as HF's collator)."""
    x = x.copy()
    labels = np.full_like(x, -100)
    sel = (g.random(x.shape) < 0.15) & ~np.isin(x, [CLS, SEP, PAD, MASK])
    labels[sel] = x[sel]
    r = g.random(x.shape)
    x[sel & ((r < 0.8) | a.all_mask)] = MASK
    rnd = sel & (r >= 0.8) & (r < 0.9) & (not a.all_mask)
    x[rnd] = g.integers(5, V, size=rnd.sum())
    return x, labels


kw = dict(vocab_size=V, hidden_size=a.hidden, num_hidden_layers=a.layers, num_attention_heads=a.heads,
          intermediate_size=4 * a.hidden, max_position_embeddings=a.seq + 4, type_vocab_size=1, layer_norm_eps=1e-5,
          hidden_dropout_prob=a.dropout, attention_probs_dropout_prob=a.dropout, pad_token_id=PAD)
if a.prenorm:
    m = RobertaPreLayerNormForMaskedLM(RobertaPreLayerNormConfig(**kw))
    base = m.roberta_prelayernorm
else:
    m = RobertaForMaskedLM(RobertaConfig(**kw))
    base = m.roberta

if a.start != "normal":
    # Kiln's layout: [sin(p·ω) for every pair, cos(p·ω) for every pair], entries of std 0.02.
    H, half, width = a.hidden, a.hidden // 2, a.hidden // a.heads
    pairs = width // 2
    omega = 10000.0 ** (-2 * torch.arange(half, dtype=torch.float64) / H)
    if a.start == "local-attention":
        omega[:pairs] = torch.linspace(math.pi / 4, 3 * math.pi / 4, pairs, dtype=torch.float64)
    angles = torch.arange(kw["max_position_embeddings"], dtype=torch.float64)[:, None] * omega[None]
    table = torch.cat([torch.sin(angles), torch.cos(angles)], 1) * 0.02 * math.sqrt(2)
    with torch.no_grad():
        base.embeddings.position_embeddings.weight.copy_(table.float())
    if a.start == "local-attention":
        # First-layer head h looks at the token offset(h) away: -1, +1, -2, +2, … (peak score 20 logits).
        g = math.sqrt(20 * math.sqrt(width) / pairs)
        q, k = torch.zeros(H, H, dtype=torch.float64), torch.zeros(H, H, dtype=torch.float64)
        for h in range(a.heads):
            offset = -(h // 2 + 1) if h % 2 == 0 else h // 2 + 1
            for mm in range(pairs):
                s_row, c_row = h * width + 2 * mm, h * width + 2 * mm + 1
                c, s = math.cos(offset * omega[mm]), math.sin(offset * omega[mm])
                q[s_row, mm], q[c_row, half + mm] = g, g
                k[s_row, mm], k[s_row, half + mm], k[c_row, mm], k[c_row, half + mm] = g * c, -g * s, g * s, g * c
        attn = base.encoder.layer[0].attention.self
        with torch.no_grad():
            attn.query.weight.copy_(q.float()), attn.key.weight.copy_(k.float())
            attn.query.bias.zero_(), attn.key.bias.zero_()

opt = torch.optim.AdamW(m.parameters(), lr=a.lr, betas=(0.9, 0.999), eps=1e-6, weight_decay=0.01)
warm = max(1, a.steps // 10)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: (s + 1) / warm if s < warm else max(0.0, (a.steps - s) / (a.steps - warm)))
vx, vl = mask(val[:1024], np.random.default_rng(123))


def evaluate():
    m.eval()
    hit = tot = mask_hit = mask_tot = 0
    with torch.no_grad():
        for i in range(0, len(vx), 64):
            x, y = torch.from_numpy(vx[i : i + 64]), torch.from_numpy(vl[i : i + 64])
            pred = m(input_ids=x, attention_mask=(x != PAD).long()).logits.argmax(-1)
            sel = y != -100
            at_mask = sel & (x == MASK)
            hit += (pred[sel] == y[sel]).sum().item()
            tot += sel.sum().item()
            mask_hit += (pred[at_mask] == y[at_mask]).sum().item()
            mask_tot += at_mask.sum().item()
    m.train()
    return hit / tot, mask_hit / max(1, mask_tot)


g = np.random.default_rng(a.seed + 1)
order, at, t0 = g.permutation(len(train)), 0, time.time()
for step in range(1, a.steps + 1):
    if at + a.batch > len(order):
        order, at = g.permutation(len(train)), 0
    xb, lb = mask(train[order[at : at + a.batch]], g)
    at += a.batch
    x = torch.from_numpy(xb)
    m(input_ids=x, attention_mask=(x != PAD).long(), labels=torch.from_numpy(lb)).loss.backward()
    opt.step(), sched.step(), opt.zero_grad(set_to_none=True)
    if step % a.every == 0 or step == a.steps:
        acc, mask_acc = evaluate()
        print(json.dumps({"step": step, "seconds": round(time.time() - t0), "masked_accuracy": round(acc, 4),
                          "mask_only_accuracy": round(mask_acc, 4)}), flush=True)

m.eval()
for text, word in [("The State of the [MASK] is strong.", "▁Union"), ("the United [MASK] of America", "▁States"),
                   ("Mr. Vice [MASK], Members of Congress", "▁President"), ("I ask the [MASK] to act.", "▁Congress"),
                   ("God bless the United States of [MASK].", "▁America")]:
    e = tok.encode(text)
    with torch.no_grad():
        logits = m(input_ids=torch.tensor([e.ids])).logits[0, e.ids.index(MASK)]
    rank = int((logits > logits[tok.token_to_id(word)]).sum()) + 1
    print(json.dumps({"text": text, "top5": [tok.id_to_token(i) for i in logits.topk(5).indices.tolist()], "word": word, "rank": rank}))
