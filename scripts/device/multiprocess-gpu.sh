#!/usr/bin/env bash
# Kiln as 2 cooperating processes on one GPU (the XLA many-process path), for a machine with the CUDA PJRT
# plugin (a jax-cuda*-pjrt wheel in python3's site-packages, or KILN_PJRT_PLUGIN) and one NVIDIA GPU.
#
# It starts a coordination store on 127.0.0.1 and two Kiln processes with node_id 0 and 1. Each creates
# its PJRT client with node_id/num_nodes and the key-value store callbacks (the plugin exchanges its
# topology through the store), compiles an all_reduce for the 2 global devices and runs it on its own
# device. Two phases: real NCCL (which may refuse two ranks on one GPU: the line then shows NCCL's error),
# then enable_mock_nccl. It prints ONE JSON line: "ok", the expected sum, and per phase and process the
# stage reached (start → client → compiled → executed → closed), the global device ids, the result or the
# error, and the store keys the plugin used. Bounded: each phase's processes are killed after
# KILN_CHECK_PHASE_S seconds (default 120), the whole script after 330 s.
#
# Needs: node ≥ 20 (NODE=/path/to/node if it is not on PATH), Kiln built (dist/) with node_modules/koffi.
# Runs from the repository checkout or from the device bundle (device-bundle/scripts/device/ → its kiln/
# package root, and its node.xz where the machine has no Node).
set -euo pipefail
source "$(dirname "$0")/package-root.sh"
if ! command -v "$NODE" >/dev/null; then
  echo '{"check":"kiln multi-process XLA","ok":false,"error":"no node: set NODE=/path/to/node (Node 20 or later)"}'
  exit 1
fi
if [ ! -f dist/test/exec/xla/multiprocess-gpu-check.js ]; then
  echo '{"check":"kiln multi-process XLA","ok":false,"error":"Kiln is not built: run npx tsc -p tsconfig.json (dist/ is missing)"}'
  exit 1
fi
exec timeout 330 "$NODE" dist/test/exec/xla/multiprocess-gpu-check.js --timeout-s "${KILN_CHECK_PHASE_S:-120}"
