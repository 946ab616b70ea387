#!/usr/bin/env bash
# npm start: install what is missing, then run Temporal dev server (unless TEMPORAL_ADDRESS), API,
# worker and console in one process. Ctrl-C stops everything.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-tools.sh
mkdir -p "${DATA_DIR:-data}"
exec node --import tsx src/main.ts
