"""Runs StableHLO modules that Kiln emitted with jaxlib's own XLA CPU client, independently of Kiln's
PJRT binding, and writes the outputs next to them.

    xla_jax_crosscheck.py CASE_DIR...

Each CASE_DIR holds manifest.json ({"module": "module.mlir", "inputs": [{"file", "dtype", "shape"}]}),
the module's MLIR text, and each input's raw little-endian bytes. The outputs are written as out-<i>.bin;
the last stdout line is JSON: {"jax": version, "platform_version": ..., "cases": [{"outputs": [...]}]}.
"""

import json
import os
import sys

import jax

jax.config.update("jax_enable_x64", True)  # i64 inputs stay i64 (jax narrows them to i32 otherwise)
jax.config.update("jax_platforms", "cpu")

from jax._src import xla_bridge  # noqa: E402  (the backend is created after the config above)

from case_files import read_array, write_array  # noqa: E402  (beside this script)



def run_case(backend, case_dir):
    with open(os.path.join(case_dir, "manifest.json")) as f:
        manifest = json.load(f)
    with open(os.path.join(case_dir, manifest["module"])) as f:
        module = f.read()
    device = backend.local_devices()[0]
    args = []
    for spec in manifest["inputs"]:
        args.append(jax.device_put(read_array(case_dir, spec), device))
    executable = backend.compile_and_load(module, [device])
    outputs = [write_array(case_dir, f"out-{i}.bin", out) for i, out in enumerate(executable.execute(args))]
    return {"outputs": outputs}


def main():
    backend = xla_bridge.get_backend("cpu")
    cases = [run_case(backend, d) for d in sys.argv[1:]]
    print(json.dumps({"jax": jax.__version__, "platform_version": backend.platform_version, "cases": cases}))


if __name__ == "__main__":
    main()
