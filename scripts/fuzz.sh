#!/usr/bin/env bash
# npm run fuzz: installs Schemathesis into .tools/venv if missing, then runs scripts/fuzz.ts (see there).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-tools.sh --fuzz
exec node --import tsx scripts/fuzz.ts "$@"
