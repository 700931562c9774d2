"""What `tokenizers` gives for texts and pairs under each of several tokenizer.json files.

Reads a JSON job on stdin: {"files": {name: path}, "texts": [TEXT, ...], "pairs": [[i, j], ...],
"cut": N, "out": PATH} and writes to PATH one JSON object: {name: {"single": [ENC per text], "plain": [ENC per
text, without special tokens], "pair": [ENC per pair], "pair_whole": [ENC per pair, the file's truncation and
padding off], "pair_cut": [ENC per pair, truncated to N tokens "longest_first" and not padded], "decoded":
[[decode(ids of single, skip=False), decode(…, skip=True)] per text]}}, where ENC is [ids, type_ids, offsets]
(offsets in characters). pair_whole and pair_cut are what transformers' `tok(a, b)` and
`tok(a, b, truncation=True, max_length=N)` give: a call sets the truncation and padding, not the file.
"""

import json
import sys

from tokenizers import Tokenizer

job = json.load(sys.stdin)
texts = job["texts"]
out = {}


def enc(e):
    return [e.ids, e.type_ids, [list(o) for o in e.offsets]]


for name, path in job["files"].items():
    tok = Tokenizer.from_file(path)
    # One call per text: a batch would pad every text to the batch's longest under BatchLongest padding.
    single = [tok.encode(t) for t in texts]
    plain = [tok.encode(t, add_special_tokens=False) for t in texts]
    pairs = [tok.encode(texts[i], texts[j]) for i, j in job["pairs"]]
    tok.no_padding()
    tok.no_truncation()
    pair_whole = [tok.encode(texts[i], texts[j]) for i, j in job["pairs"]]
    # Pairs cut to job["cut"] tokens (longest_first), where the job asks for them.
    pair_cut = []
    if "cut" in job:
        tok.enable_truncation(job["cut"], strategy="longest_first", direction="right")
        pair_cut = [tok.encode(texts[i], texts[j]) for i, j in job["pairs"]]
    out[name] = {
        "single": [enc(e) for e in single],
        "plain": [enc(e) for e in plain],
        "pair": [enc(e) for e in pairs],
        "pair_whole": [enc(e) for e in pair_whole],
        "pair_cut": [enc(e) for e in pair_cut],
        "decoded": [[tok.decode(e.ids, skip_special_tokens=False), tok.decode(e.ids, skip_special_tokens=True)] for e in single],
    }
with open(job["out"], "w") as f:
    json.dump(out, f)
print(json.dumps({"files": len(out)}))
