"""`tokenizers`' BpeTrainer and WordPieceTrainer on a corpus, with the pipelines Kiln trains them with.

Reads a JSON job on stdin: {"corpus": TEXT_FILE (one document a line), "out": DIR, "vocab_size": N,
"special_tokens": [...], "wordpiece_min_frequency": N, "wordpiece_limit_alphabet": N} and writes
DIR/bpe.json (byte-level BPE: GPT-2's pre-tokenizer, the 256 byte characters as initial alphabet) and
DIR/wordpiece.json (BertNormalizer without lowercasing, BertPreTokenizer, "##"). The lines are fed
without their newlines, as Kiln reads them. Prints one JSON line: {"bpe": path, "wordpiece": path}.
"""

import json
import os
import sys

from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers

job = json.load(sys.stdin)
with open(job["corpus"], encoding="utf-8") as f:
    lines = [line.rstrip("\n") for line in f]
os.makedirs(job["out"], exist_ok=True)
made = {}

bpe = Tokenizer(models.BPE())
bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
bpe.train_from_iterator(
    lines,
    trainers.BpeTrainer(
        vocab_size=job["vocab_size"],
        special_tokens=job["special_tokens"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    ),
)
made["bpe"] = os.path.join(job["out"], "bpe.json")
bpe.save(made["bpe"])

wp = Tokenizer(models.WordPiece(unk_token="<unk>"))
wp.normalizer = normalizers.BertNormalizer(lowercase=False)
wp.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
wp.train_from_iterator(
    lines,
    trainers.WordPieceTrainer(
        vocab_size=job["vocab_size"],
        special_tokens=job["special_tokens"],
        min_frequency=job["wordpiece_min_frequency"],
        limit_alphabet=job["wordpiece_limit_alphabet"],
        show_progress=False,
    ),
)
made["wordpiece"] = os.path.join(job["out"], "wordpiece.json")
wp.save(made["wordpiece"])
print(json.dumps(made))
