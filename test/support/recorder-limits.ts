import type { RecorderLimits } from '../../src/adapters/capture/recorder-deps.js';

/** A recorder's limits in tests: none that a test stream reaches, chunks of 64 MiB; `overrides` for what a test is about. */
export function recorderLimits(overrides: Partial<RecorderLimits> = {}): RecorderLimits {
  return {
    idleSeconds: 30,
    unreachableSeconds: 30,
    offlineSeconds: 30,
    maxSeconds: 3600,
    maxBytes: 1e12,
    minFreeBytes: 0,
    heartbeatSeconds: 5,
    chunkBytes: 64 * 1024 * 1024,
    chunkSeconds: 0,
    handoverMs: 1000,
    ...overrides,
  };
}
