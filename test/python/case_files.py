"""The raw-array files of a case directory that Kiln's tests hand to jaxlib (xla_jax_crosscheck.py,
xla_jax_multiprocess.py): each array is its little-endian bytes in a file, described in manifest.json
by {"file", "dtype", "shape"} with Kiln's dtype names."""

import os

import ml_dtypes
import numpy as np

DTYPES = {
    "f32": np.float32,
    "f64": np.float64,
    "bf16": ml_dtypes.bfloat16,
    "f16": np.float16,
    "i32": np.int32,
    "u32": np.uint32,
    "i64": np.int64,
    "bool": np.bool_,
}
NAMES = {np.dtype(v): k for k, v in DTYPES.items()}


def read_array(case_dir, spec):
    """The array a manifest entry describes."""
    return np.fromfile(os.path.join(case_dir, spec["file"]), dtype=DTYPES[spec["dtype"]]).reshape(spec["shape"])


def write_array(case_dir, name, array):
    """Writes a device result as `name` and returns its manifest entry."""
    host = np.asarray(array)
    np.ascontiguousarray(host).tofile(os.path.join(case_dir, name))
    return {"file": name, "dtype": NAMES[host.dtype], "shape": list(host.shape)}
