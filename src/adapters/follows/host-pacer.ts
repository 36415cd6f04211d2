// Decisions: docs/decisions/0110-follows-policy-pacing-api.md
import { setTimeout as sleep } from 'node:timers/promises';
import type { HostPacer } from '../../core/follows/ports.js';

export interface PacerOptions {
  /** Requests the whole instance sends one host per minute, at most (KURA_FOLLOW_HOST_RATE). */
  requestsPerMinute: number;
  /** The clock (tests pass their own). */
  now?: () => number;
  sleep?: (ms: number) => Promise<unknown>;
}

/**
 * Spaces the requests to each host evenly in this process: 60 s / rate apart, times the workers
 * the rate is shared with (each holds an even share of the follows, so of each host's); requests
 * to other hosts are not held up. Each caller is given the next free slot at once, so waiters never race.
 */
export function createHostPacer(options: PacerOptions): HostPacer {
  let spacingMs = 60_000 / options.requestsPerMinute;
  const now = options.now ?? Date.now;
  const wait = options.sleep ?? sleep;
  /** Per host, when the next request may go. */
  const nextFree = new Map<string, number>();
  return {
    async wait(host) {
      const at = Math.max(now(), nextFree.get(host) ?? 0);
      nextFree.set(host, at + spacingMs);
      // hosts not asked for a while need no entry: the map stays as small as the hosts in use
      for (const [name, free] of nextFree) if (free < now() - spacingMs) nextFree.delete(name);
      const delay = at - now();
      if (delay > 0) await wait(delay);
    },
    shareWith(workers) {
      spacingMs = (60_000 * Math.max(1, workers)) / options.requestsPerMinute;
    },
  };
}
