# Sourced by the device scripts that run Kiln's compiled files, from the repository checkout or from the
# device bundle (device-bundle/scripts/device/ → the bundle's kiln/ package root). Changes into that root
# and sets NODE: $NODE, else `node` on PATH, else the bundle's node.xz unpacked into a temporary folder
# (with xz, or python3's lzma where xz is absent: python3 is always there).
source "$(dirname "${BASH_SOURCE[0]}")/unxz.sh"

top="$(cd "$(dirname "${BASH_SOURCE[1]}")/../.." && pwd)"
NODE="${NODE:-node}"
if [ -d "$top/kiln/dist" ]; then
  cd "$top/kiln"
  if ! command -v "$NODE" >/dev/null && [ -f "$top/node.xz" ]; then
    NODE="$(mktemp -d)/node"
    unxz_to "$top/node.xz" "$NODE"
    chmod +x "$NODE"
  fi
else
  cd "$top"
fi
