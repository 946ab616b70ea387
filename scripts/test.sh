#!/usr/bin/env bash
# npm test: installs what the suite needs (npm packages, Temporal CLI and time-skipping test server),
# type-checks, lints workflow code for determinism, then runs every test file against the real
# PostgreSQL at DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test) and real Temporal servers.
# A test that runs past 10 minutes fails (a hang fails the run instead of stalling it).
# The last line of output is "N passed, N failed[, N skipped]".
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-tools.sh --test

echo "[test] typecheck"
npx tsc --noEmit -p tsconfig.json
echo "[test] lint (workflow determinism, layer boundaries)"
npx eslint workflows activities src

mapfile -t files < <(find test -name '*.test.ts' | sort)
if [ "${#files[@]}" -eq 0 ]; then
  echo "no test files found" >&2
  exit 1
fi
export DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}"
exec node --import tsx --test \
  --test-concurrency="${TEST_CONCURRENCY:-2}" --test-timeout="${TEST_TIMEOUT_MS:-600000}" \
  --test-reporter=spec --test-reporter-destination=stdout \
  --test-reporter=./test/support/summary-reporter.mjs --test-reporter-destination=stdout \
  "${files[@]}"
