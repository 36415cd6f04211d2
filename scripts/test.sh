#!/usr/bin/env bash
# The whole test suite: build, run vitest (real PostgreSQL from embedded-postgres, started by the
# suite itself), then print one plain line "N passed, N failed". Exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."

npm run --silent build || { echo "0 passed, 1 failed"; exit 1; }
mkdir -p test-artifacts
rm -f test-artifacts/vitest.json
npx vitest run --reporter=default --reporter=json --outputFile.json=test-artifacts/vitest.json "$@"
vitest_status=$?
node scripts/test-summary.mjs test-artifacts/vitest.json
summary_status=$?
if [ "$vitest_status" -ne 0 ] || [ "$summary_status" -ne 0 ]; then exit 1; fi
