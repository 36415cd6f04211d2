#!/usr/bin/env bash
# The whole test suite: build, lint, run vitest (real PostgreSQL from embedded-postgres, started by
# the suite itself), then print one plain line "N passed, N failed". Exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."

# the build `npm ci` just made is reused when it was made from this very commit with nothing
# changed since (scripts/prepare.mjs); a working tree with changes is always built again
node scripts/prepare.mjs || { echo "0 passed, 1 failed"; exit 1; }
# `npm run lint` minus the type checks the build ran: eslint (with the layer boundaries of
# docs/ARCHITECTURE.md), the Prettier format and svelte-check, the three at once. A broken boundary
# fails the suite before any test runs.
lint_dir=$(mktemp -d)
for check in lint:eslint format:check lint:svelte; do
  npm run --silent "$check" >"$lint_dir/$check.txt" 2>&1 &
done
lint_failed=0
for job in $(jobs -p); do wait "$job" || lint_failed=1; done
if [ "$lint_failed" -ne 0 ]; then
  cat "$lint_dir"/*.txt
  echo "0 passed, 1 failed"
  exit 1
fi
rm -rf "$lint_dir"
mkdir -p test-artifacts
rm -f test-artifacts/vitest.json
npx vitest run --reporter=default --reporter=json --outputFile.json=test-artifacts/vitest.json "$@"
vitest_status=$?
node scripts/test-summary.mjs test-artifacts/vitest.json "$vitest_status"
summary_status=$?
if [ "$vitest_status" -ne 0 ] || [ "$summary_status" -ne 0 ]; then exit 1; fi
