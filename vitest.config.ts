// Decisions: docs/decisions/0119-tests-that-cannot-lie.md
import { defineConfig } from 'vitest/config';
import E2eFirstSequencer from './test/support/e2e-first-sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    // a worker process runs file after file, loading the packages and Kura's modules once rather
    // than once a file: two fifths of the integration files' CPU was loading them again
    // (decision 0116); each file still makes its own database, data directory and servers
    isolate: false,
    // four test files at once even on two cores (vitest would take one): most of the suite's time
    // is real-time streams waiting on the clock, not CPU (decision 0116)
    maxWorkers: 4,
    sequence: { sequencer: E2eFirstSequencer },
    // end-to-end tests record real-time streams of 10–20 s and take 30–40 s on a quiet 2-core
    // machine; the limit only catches a hang, with room for a loaded CI machine
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // what expect.poll and vi.waitFor wait for is an event that comes (a change notification, a
    // job's effect): the timeout only bounds a hang, so it is generous for a loaded machine; a
    // test that must see something within a time says so itself
    expect: { poll: { timeout: 10_000, interval: 50 } },
  },
});
