"""One of N processes running Kiln's StableHLO with jaxlib's own CPU client and its gloo collectives
across processes (jax.distributed.initialize on 127.0.0.1), independently of Kiln's PJRT binding.

    xla_jax_multiprocess.py PROCESS_ID NUM_PROCESSES LOCAL_DEVICES COORDINATOR_PORT CASE_DIR...

Each CASE_DIR holds manifest.json:
    {"module": "module.mlir", "compile_options": "compile-options.bin",
     "replicas": [[{"file", "dtype", "shape"}, ...] per input] per replica}
where compile-options.bin is the serialized xla.CompileOptionsProto Kiln wrote (num_replicas and the
device assignment of global device ids, replica r on the r-th smallest id). This process runs the
replicas on its own devices and writes each output as out-<replica>-<j>.bin; the last stdout line is
JSON: {"process": P, "global_device_ids": [...], "cases": [{"replicas": {r: [outputs]}}]}.
"""

import json
import os
import re
import sys

import jax

jax.config.update("jax_enable_x64", True)
jax.config.update("jax_platforms", "cpu")
jax.config.update("jax_cpu_collectives_implementation", "gloo")

import numpy as np  # noqa: E402

from case_files import read_array, write_array  # noqa: E402  (beside this script)


def run_case(backend, client_module, case_dir):
    with open(os.path.join(case_dir, "manifest.json")) as f:
        manifest = json.load(f)
    with open(os.path.join(case_dir, manifest["module"])) as f:
        module = f.read()
    with open(os.path.join(case_dir, manifest["compile_options"]), "rb") as f:
        options = client_module.CompileOptions.ParseFromString(f.read())
    ids = sorted(d.id for d in jax.devices())
    # DeviceAssignment has no accessors in jaxlib 0.10; its text is "...Computation0{0 1 2048 2049}".
    text = str(options.executable_build_options.device_assignment)
    assignment = [int(i) for i in re.search(r"Computation0\{([^}]*)\}", text).group(1).split()]
    if assignment != ids:
        raise SystemExit(f"Kiln's device assignment {assignment} is not jaxlib's global device ids {ids}")
    devices = client_module.DeviceList(tuple(sorted(jax.devices(), key=lambda d: d.id)))
    executable = backend.compile_and_load(module, devices, options)
    local = executable.local_devices()
    replicas = [ids.index(d.id) for d in local]
    # One array per input whose shards are this process's replicas' inputs, on their devices. The
    # sharding only places the shards (execute_sharded reads them per device); the data differ per replica.
    mesh = jax.sharding.Mesh(np.array(sorted(jax.devices(), key=lambda d: d.id)), ("replicas",))
    replicated = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec())
    args = []
    for i, spec in enumerate(manifest["replicas"][0]):
        shards = []
        for r, d in zip(replicas, local):
            shards.append(jax.device_put(read_array(case_dir, manifest["replicas"][r][i]), d))
        args.append(jax.make_array_from_single_device_arrays(tuple(spec["shape"]), replicated, shards))
    results = executable.execute_sharded(args).disassemble_into_single_device_arrays()
    out = {}
    for k, r in enumerate(replicas):
        out[str(r)] = [write_array(case_dir, f"out-{r}-{j}.bin", per_device[k]) for j, per_device in enumerate(results)]
    return {"replicas": out}


def main():
    process_id, num_processes, local_devices, port = (int(a) for a in sys.argv[1:5])
    jax.config.update("jax_num_cpu_devices", local_devices)
    jax.distributed.initialize(
        coordinator_address=f"127.0.0.1:{port}",
        num_processes=num_processes,
        process_id=process_id,
        initialization_timeout=60,
    )
    from jax._src import xla_bridge
    from jax._src.lib import xla_client

    backend = xla_bridge.get_backend("cpu")
    cases = [run_case(backend, xla_client, d) for d in sys.argv[5:]]
    print(
        json.dumps(
            {
                "jax": jax.__version__,
                "process": process_id,
                "global_device_ids": sorted(d.id for d in jax.devices()),
                "cases": cases,
            }
        )
    )
    jax.distributed.shutdown()


if __name__ == "__main__":
    main()
