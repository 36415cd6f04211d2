import { checkFollow, type CheckDeps, type CheckPolicy } from '../../src/core/follows/check-follow.js';
import type { CheckOutcome } from '../../src/core/follows/ports.js';

const HOLDER = 'test-holder';

/**
 * Checks a follow at `at` the way a worker's poller does (src/jobs/loops/held-follows.ts): it
 * claims the follow, runs the core's `checkFollow` on the row as claimed, writes at once the look
 * that check left for the batch (a poller writes it within a minute) and lets the follow go.
 */
export async function checkAsHeld(deps: CheckDeps, id: string, policy: CheckPolicy, at: Date): Promise<CheckOutcome> {
  const { follows } = await deps.follows.claim(HOLDER, at, 60, 1_000);
  try {
    const follow = follows.find((f) => f.id === id);
    if (follow === undefined) throw new Error(`follow ${id} could not be claimed: paused, removed or held by another worker`);
    const { outcome, unwritten } = await checkFollow(deps, follow, policy, at);
    if (unwritten !== null) await deps.follows.recordLooks(HOLDER, [unwritten]);
    return outcome;
  } finally {
    await deps.follows.release(HOLDER, null);
  }
}
