"""What the Python ecosystem makes of Kiln's classification data (test/data/classification-interop.test.ts):
each record of a JSON Lines file encoded by `tokenizers` with the tokenizer.json's own post-processor and
truncation to max_length (as transformers' fast tokenizers do), and the shards read back by TensorFlow
(tf.data.TFRecordDataset + tf.io.parse_single_example, input_ids and token_type_ids as VarLenFeature).

Usage: classification_records.py TOKENIZER_JSON INPUT_JSONL TEXT PAIR MAX_LENGTH SHARD... (PAIR "" for none)
Prints one JSON line: {"tokenizers": [[ids, type_ids], ...], "tensorflow": [[ids, type_ids, label], ...]}."""

import json
import sys

from tokenizers import Tokenizer

tokenizer_json, input_jsonl, text_column, pair_column, max_length, *shards = sys.argv[1:]
tokenizer = Tokenizer.from_file(tokenizer_json)
tokenizer.enable_truncation(int(max_length))
encoded = []
with open(input_jsonl, encoding="utf8") as f:
    for line in f:
        if not line.strip():
            continue
        row = json.loads(line)
        e = tokenizer.encode(row[text_column], row[pair_column]) if pair_column else tokenizer.encode(row[text_column])
        encoded.append([e.ids, e.type_ids])

import tensorflow as tf  # noqa: E402 (slow to import: only once tokenizers is done)

features = {
    "input_ids": tf.io.VarLenFeature(tf.int64),
    "token_type_ids": tf.io.VarLenFeature(tf.int64),
    "label": tf.io.FixedLenFeature([], tf.int64),
}
read = []
for record in tf.data.TFRecordDataset(shards):
    example = tf.io.parse_single_example(record, features)
    ids = tf.sparse.to_dense(example["input_ids"]).numpy().tolist()
    types = tf.sparse.to_dense(example["token_type_ids"]).numpy().tolist()
    read.append([ids, types, int(example["label"].numpy())])

print(json.dumps({"tokenizers": encoded, "tensorflow": read}))
