// Decisions: docs/decisions/0119-tests-that-cannot-lie.md
// Prints "N passed, N failed" from vitest's JSON report; exits 1 on failures or a missing report.
// Usage: node scripts/test-summary.mjs REPORT [VITEST_EXIT_STATUS]
import { existsSync, readFileSync } from 'node:fs';

const file = process.argv[2];
if (!file || !existsSync(file)) {
  console.log('0 passed, 1 failed');
  process.exit(1);
}
const report = JSON.parse(readFileSync(file, 'utf8'));
const passed = report.numPassedTests ?? 0;
// a file that failed to load has no tests to count: count it as one failure
const brokenFiles = (report.testResults ?? []).filter((r) => r.status === 'failed' && (r.assertionResults ?? []).length === 0).length;
// vitest fails a run whose tests all passed when an error escaped them (an unhandled rejection or
// exception): the report does not count it, so it counts here as one failure
const vitestStatus = Number(process.argv[3] ?? 0);
const counted = (report.numFailedTests ?? 0) + brokenFiles;
const escaped = vitestStatus !== 0 && counted === 0;
if (escaped) console.log(`vitest exited with ${vitestStatus}: an error escaped the tests (see "Unhandled Errors" above)`);
const failed = counted + (escaped ? 1 : 0);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
