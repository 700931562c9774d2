"""TFRecord interop with the real TensorFlow, both directions, in one process (importing TensorFlow
costs seconds).

Reads a JSON job on stdin:
  {"read": [{"path": P, "compression": "" | "GZIP"}], "max_length": L, "write_dir": D, "seed": S}

1. Reads every file in "read" with tf.data.TFRecordDataset + tf.io.parse_single_example and the
   reference pipeline's feature spec (input_ids and attention_mask, FixedLenFeature([L], int64)), and
   reports the values, the record count, and how many records are byte for byte what protobuf's
   deterministic serialization of the same Example gives.
2. Writes shards with tf.io.TFRecordWriter into D/shards, plain and GZIP, with only the two features
   and with extra features (bytes, float, int64 lists) next to them, and reports what it wrote.
3. Makes damaged copies of a TF-written shard (a flipped byte in one record's data; the file cut
   short inside a record; each plain and GZIP) and of a TF-written GZIP file's compressed bytes (a
   flipped byte; cut short), and reports the error TensorFlow itself gives on each and how many
   records it read before it.

Prints one JSON line. 64-bit integers are decimal strings and floats are the hex of their float32
bits, so that nothing is rounded on the way to JavaScript.
"""

import gzip
import json
import os
import random
import re
import struct
import sys

import tensorflow as tf


def feature_spec(max_length):
    # As the reference pipeline (run_mlm.py) parses its shards.
    return {
        "input_ids": tf.io.FixedLenFeature(dtype=tf.int64, shape=(max_length,)),
        "attention_mask": tf.io.FixedLenFeature(dtype=tf.int64, shape=(max_length,)),
    }


def read_shard(path, compression, max_length):
    spec = feature_spec(max_length)
    ids, mask = [], []
    canonical = 0
    for raw in tf.data.TFRecordDataset(path, compression_type=compression):
        parsed = tf.io.parse_single_example(raw, spec)
        ids.append(parsed["input_ids"].numpy().tolist())
        mask.append(parsed["attention_mask"].numpy().tolist())
        data = raw.numpy()
        if tf.train.Example.FromString(data).SerializeToString(deterministic=True) == data:
            canonical += 1
    return {"path": path, "count": len(ids), "input_ids": ids, "attention_mask": mask, "canonical": canonical}


def int64_feature(values):
    return tf.train.Feature(int64_list=tf.train.Int64List(value=values))


def f32_hex(v):
    return struct.pack("<f", v).hex()


INT64_EDGES = [-(2**63), 2**63 - 1, -1, 0, 1, 2**31, -(2**31) - 1, 2**53 + 1]
FLOAT_EDGES = [0.0, -0.0, 1.5, -2.25, 3.4028234663852886e38, 1e-45, float("inf"), float("-inf"), 0.1]
BYTES_EDGES = [b"", b"\x00\xff\xfe", "tf.train.Example \u2713".encode("utf-8")]


def make_rows(rng, n, max_length, extras):
    rows = []
    for i in range(n):
        length = rng.randint(2, max_length)
        # Token ids of every size a varint takes, up to int32's maximum.
        ids = [rng.choice([rng.randint(0, 127), rng.randint(128, 70000), rng.randint(0, 2**31 - 1)]) for _ in range(length)]
        ids += [3] * (max_length - length)
        if i == 0:
            ids[0] = 2**31 - 1
        mask = [1] * length + [0] * (max_length - length)
        row = {"input_ids": ids, "attention_mask": mask}
        if extras:
            row["text"] = [BYTES_EDGES[i % len(BYTES_EDGES)], bytes(rng.randrange(256) for _ in range(rng.randint(0, 9)))]
            row["score"] = [struct.unpack("<f", struct.pack("<f", v))[0] for v in FLOAT_EDGES[: 1 + i % len(FLOAT_EDGES)]]
            row["score"].append(struct.unpack("<f", struct.pack("<f", rng.uniform(-1e6, 1e6)))[0])
            row["big"] = INT64_EDGES[i % len(INT64_EDGES) :] + [rng.randint(-(2**63), 2**63 - 1)]
            row["empty"] = []
            row["unset"] = None
            row["na\u00efve \u00fc"] = [i, -i]
        rows.append(row)
    return rows


def example_of(row):
    feature = {
        "input_ids": int64_feature(row["input_ids"]),
        "attention_mask": int64_feature(row["attention_mask"]),
    }
    if "text" in row:
        feature["text"] = tf.train.Feature(bytes_list=tf.train.BytesList(value=row["text"]))
        feature["score"] = tf.train.Feature(float_list=tf.train.FloatList(value=row["score"]))
        feature["big"] = int64_feature(row["big"])
        feature["empty"] = int64_feature(row["empty"])
        # A Feature with no list set, which TensorFlow reads as empty, and a name that is not ASCII.
        feature["unset"] = tf.train.Feature()
        feature["na\u00efve \u00fc"] = int64_feature(row["na\u00efve \u00fc"])
    return tf.train.Example(features=tf.train.Features(feature=feature))


def write_shard(path, compression, rows):
    options = tf.io.TFRecordOptions(compression_type=compression)
    with tf.io.TFRecordWriter(path, options=options) as writer:
        for row in rows:
            writer.write(example_of(row).SerializeToString())


def json_row(row):
    out = {"input_ids": row["input_ids"], "attention_mask": row["attention_mask"]}
    if "text" in row:
        out["text"] = [v.hex() for v in row["text"]]
        out["score"] = [f32_hex(v) for v in row["score"]]
        out["big"] = [str(v) for v in row["big"]]
        out["empty"] = row["empty"]
        out["unset"] = None
        out["na\u00efve \u00fc"] = [str(v) for v in row["na\u00efve \u00fc"]]
    return out


def record_starts(data):
    """Byte offsets where the records of an uncompressed TFRecord file start."""
    starts, at = [], 0
    while at < len(data):
        starts.append(at)
        (length,) = struct.unpack_from("<Q", data, at)
        at += 12 + length + 4
    return starts


def tf_error(path, compression):
    """Records TensorFlow reads before failing, and its error message (None when it reads to the end)."""
    n = 0
    try:
        for _ in tf.data.TFRecordDataset(path, compression_type=compression):
            n += 1
    except (tf.errors.DataLossError, tf.errors.InvalidArgumentError, tf.errors.OutOfRangeError) as e:
        message = e.message
        m = re.search(r"(corrupted|truncated) record at (\d+)", message)
        return {"records_before": n, "tf_message": m.group(0) if m else message, "tf_offset": int(m.group(2)) if m else None}
    return {"records_before": n, "tf_message": None, "tf_offset": None}


def damage(source, out_dir, bad_record):
    """Damaged copies of `source` (plain): one record's data with a flipped byte; the file cut inside a record."""
    with open(source, "rb") as f:
        data = f.read()
    starts = record_starts(data)
    start = starts[bad_record]
    (length,) = struct.unpack_from("<Q", data, start)
    flipped = bytearray(data)
    flipped[start + 12 + length // 2] ^= 0x10
    cut = data[: start + 12 + length // 3]
    results = []
    for kind, content in (("corrupted", bytes(flipped)), ("truncated", cut)):
        for compression in ("", "GZIP"):
            path = os.path.join(out_dir, f"damaged-{kind}.tfrecord" + (".gz" if compression else ""))
            with open(path, "wb") as f:
                f.write(gzip.compress(content) if compression else content)
            results.append({"path": path, "kind": kind, "compression": compression, "record_start": start, **tf_error(path, compression)})
    return results


def damage_gzip(source, out_dir):
    """Damaged copies of a GZIP file itself: a flipped byte in its compressed data; the file cut short."""
    with open(source, "rb") as f:
        data = f.read()
    plain = gzip.decompress(data)
    # Where a reader may stop: at a record start, or at the end of the data.
    boundaries = record_starts(plain) + [len(plain)]
    flipped = bytearray(data)
    flipped[len(data) // 2] ^= 0x10
    results = []
    for kind, content in (("gzip-corrupted", bytes(flipped)), ("gzip-truncated", data[: len(data) * 2 // 3])):
        path = os.path.join(out_dir, f"damaged-{kind}.tfrecord.gz")
        with open(path, "wb") as f:
            f.write(content)
        results.append({"path": path, "kind": kind, "compression": "GZIP", "boundaries": boundaries, **tf_error(path, "GZIP")})
    return results


def main():
    job = json.load(sys.stdin)
    max_length = job["max_length"]
    read = [read_shard(r["path"], r["compression"], max_length) for r in job["read"]]

    rng = random.Random(job["seed"])
    out_dir = job["write_dir"]
    os.makedirs(out_dir, exist_ok=True)
    # Named as the reference pipeline names its shards, so their record counts are in their names.
    shard_dir = os.path.join(out_dir, "shards")
    os.makedirs(shard_dir, exist_ok=True)
    written = []
    for extras in (False, True):
        for compression in ("", "GZIP"):
            rows = make_rows(rng, 7 + 4 * extras + (compression == "GZIP"), max_length, extras)
            name = f"dataset-{len(written)}-{len(rows)}.tfrecord" + (".gz" if compression else "")
            path = os.path.join(shard_dir, name)
            write_shard(path, compression, rows)
            written.append({"path": path, "compression": compression, "rows": [json_row(r) for r in rows]})

    damaged = damage(written[0]["path"], out_dir, bad_record=3) + damage_gzip(written[1]["path"], out_dir)
    print(json.dumps({"tensorflow": tf.__version__, "read": read, "written": written, "damaged": damaged}))


if __name__ == "__main__":
    main()
