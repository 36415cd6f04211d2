#!/usr/bin/env bash
# The whole test suite: build, lint, run vitest (real PostgreSQL from embedded-postgres, started by
# the suite itself), then print one plain line "N passed, N failed". Exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."

npm run --silent build || { echo "0 passed, 1 failed"; exit 1; }
# `npm run lint` minus the type checks the build just ran: eslint (with the layer boundaries of
# docs/ARCHITECTURE.md), the Prettier format and svelte-check. A broken boundary fails the suite
# before any test runs.
{ npm run --silent lint:eslint && npm run --silent format:check && npm run --silent lint:svelte; } || { echo "0 passed, 1 failed"; exit 1; }
mkdir -p test-artifacts
rm -f test-artifacts/vitest.json
npx vitest run --reporter=default --reporter=json --outputFile.json=test-artifacts/vitest.json "$@"
vitest_status=$?
node scripts/test-summary.mjs test-artifacts/vitest.json "$vitest_status"
summary_status=$?
if [ "$vitest_status" -ne 0 ] || [ "$summary_status" -ne 0 ]; then exit 1; fi
