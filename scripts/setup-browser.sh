#!/usr/bin/env bash
# Installs headless Chromium (Debian's `chromium` package, /usr/bin/chromium) for the browser tests, which
# drive it with playwright-core; playwright's own browser downloads are never used. Idempotent: a no-op
# when /usr/bin/chromium is there. Where it cannot install (no apt-get, not root), it prints one reason
# and exits 0, so the browser tests skip saying why; with CI=true that is a failure.
set -uo pipefail

give_up() {
  echo "kiln: headless Chromium is not installed ($1); the browser tests will skip" >&2
  if [ "${CI:-}" = "true" ]; then exit 1; fi
  exit 0
}

if [ -x /usr/bin/chromium ]; then exit 0; fi
command -v apt-get >/dev/null 2>&1 || give_up "no apt-get; install Chromium as /usr/bin/chromium by hand"
sudo=""
if [ "$(id -u)" != "0" ]; then
  command -v sudo >/dev/null 2>&1 || give_up "apt-get needs root; run: sudo apt-get install -y chromium"
  sudo="sudo"
fi
echo "kiln: installing chromium with apt-get (first run only)" >&2
$sudo apt-get update -qq || give_up "apt-get update failed"
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null || give_up "apt-get install chromium failed"
[ -x /usr/bin/chromium ] || give_up "the chromium package did not provide /usr/bin/chromium"
