# Peer of `kiln quickstart --task classify`: the same fine-tuning in PyTorch with transformers, from what the
# quickstart leaves in DIR/peer: the starting weights (DIR/classifier-init: Kiln's pretrained encoder and its
# fresh head, loaded by RobertaForSequenceClassification.from_pretrained), the training batches in the order
# Kiln's Trainer read them (the same token ids, padding and labels; -100 on padding rows), the held-out
# batches, and the recipe: AdamW (betas, eps, weight decay off biases and LayerNorm weights, as Kiln's),
# linear warmup and decay, no gradient clipping, dropout as the config says (in the head too, as Kiln's).
# Prints one JSON line: held-out accuracy, macro F1 (sklearn's), the confusion matrix, and Kiln's figures
# from the same run beside them.
# Usage: .venv/bin/python bench/peers/hf_classify_cpu.py runs/spam-assassin [--threads 2]
import argparse, json, os, time
import torch
from transformers import AutoModelForSequenceClassification, get_linear_schedule_with_warmup

p = argparse.ArgumentParser()
p.add_argument("dir", help="the quickstart's --dir (it holds peer/ and classifier-init/)")
p.add_argument("--threads", type=int, default=2)
p.add_argument("--seed", type=int, default=42)
a = p.parse_args()
torch.set_num_threads(a.threads)
torch.manual_seed(a.seed)
peer = os.path.join(a.dir, "peer")
with open(os.path.join(peer, "recipe.json")) as f:
    r = json.load(f)


def batches(name):
    with open(os.path.join(peer, name)) as f:
        for line in f:
            b = json.loads(line)
            yield (torch.tensor(b["input_ids"]), torch.tensor(b["attention_mask"]), torch.tensor(b["labels"]))


model = AutoModelForSequenceClassification.from_pretrained(r["init_dir"]).train()
no_decay = lambda n: n.endswith(".bias") or "LayerNorm" in n or "layer_norm" in n
groups = [
    {"params": [q for n, q in model.named_parameters() if not no_decay(n)], "weight_decay": r["weight_decay"]},
    {"params": [q for n, q in model.named_parameters() if no_decay(n)], "weight_decay": 0.0},
]
opt = torch.optim.AdamW(groups, lr=r["learning_rate"], betas=tuple(r["betas"]), eps=r["eps"])
sched = get_linear_schedule_with_warmup(opt, r["warmup_steps"], r["steps"])
t0 = time.perf_counter()
steps = tokens = 0
for ids, mask, labels in batches("train-batches.jsonl"):
    logits = model(input_ids=ids, attention_mask=mask).logits
    # Mean over the labelled rows (padding rows are -100), as Kiln's loss and transformers' own.
    loss = torch.nn.functional.cross_entropy(logits, labels, ignore_index=-100)
    loss.backward()
    opt.step()
    sched.step()
    opt.zero_grad(set_to_none=True)
    steps += 1
    tokens += int(mask[labels != -100].sum())
    if steps % 50 == 0:
        print(f"step {steps}: loss {loss.item():.4f}", flush=True, file=__import__("sys").stderr)
train_s = time.perf_counter() - t0

model.eval()
n = len(r["labels"])
confusion = [[0] * n for _ in range(n)]
with torch.no_grad():
    for ids, mask, labels in batches("held-out-batches.jsonl"):
        pred = model(input_ids=ids, attention_mask=mask).logits.argmax(-1)
        for t, q in zip(labels.tolist(), pred.tolist()):
            if t != -100:
                confusion[t][q] += 1
total = sum(map(sum, confusion))
accuracy = sum(confusion[c][c] for c in range(n)) / total
f1s = []
for c in range(n):
    support, predicted = sum(confusion[c]), sum(row[c] for row in confusion)
    if support or predicted:
        f1s.append(2 * confusion[c][c] / (support + predicted))
print(json.dumps({
    "peer": "hf-torch-classify", "torch": torch.__version__, "threads": torch.get_num_threads(),
    "steps": steps, "train_s": round(train_s, 1), "tokens_per_s": round(tokens / train_s),
    "eval_accuracy": round(accuracy, 4), "eval_macro_f1": round(sum(f1s) / len(f1s), 4), "held_out": total,
    "confusion": confusion, "labels": r["labels"],
    "kiln_eval_accuracy": round(r["kiln"]["accuracy"], 4), "kiln_eval_macro_f1": round(r["kiln"]["macro_f1"], 4),
    "accuracy_points_kiln_minus_torch": round(100 * (r["kiln"]["accuracy"] - accuracy), 2),
}), flush=True)
