#!/usr/bin/env bash
# Makes the project-local Python environment (.venv, or $KILN_VENV) that the interop and XLA tests
# use, from the pinned python/requirements.txt and python/constraints.txt. Idempotent: a second run
# with unchanged requirements only checks a stamp. Never touches the system Python.
#
# Where Python cannot be set up (no python3 3.11+, no venv module, no package index), it prints one
# reason and exits 0, so that the tests that need it skip saying why; with CI=true that is a failure.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="${KILN_VENV:-$root/.venv}"
req="$root/python/requirements.txt"
con="$root/python/constraints.txt"
stamp="$venv/.kiln-requirements"

give_up() {
  echo "kiln: the Python side is not installed ($1); the interop and XLA tests will skip" >&2
  if [ "${CI:-}" = "true" ]; then exit 1; fi
  exit 0
}

want="$(cat "$req" "$con" | sha256sum | cut -d' ' -f1)"
if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then exit 0; fi

py="${KILN_PYTHON:-python3}"
command -v "$py" >/dev/null 2>&1 || give_up "$py not found; install Python 3.11 or newer, or set KILN_PYTHON"
"$py" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' || give_up "$("$py" --version 2>&1) is older than 3.11"

echo "kiln: installing the Python side into $venv (pinned in python/requirements.txt; first run only)" >&2
if [ ! -x "$venv/bin/python" ]; then
  "$py" -m venv "$venv" || give_up "'$py -m venv' failed; on Debian: apt-get install python3-venv"
fi
log="$venv/.kiln-pip.log"
if ! "$venv/bin/python" -m pip install --disable-pip-version-check -q -r "$req" -c "$con" >"$log" 2>&1; then
  tail -n 20 "$log" >&2
  give_up "pip install -r python/requirements.txt failed (the whole log: $log)"
fi
echo "$want" >"$stamp"
echo "kiln: Python side ready ($("$venv/bin/python" --version))" >&2
