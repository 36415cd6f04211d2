// Decisions: docs/decisions/0006-history-queue-and-stats.md
import type { Livestream } from './livestream.js';
import type { LivestreamRepo } from './ports.js';

/** The queue is shown whole; this bounds one response. */
export const QUEUE_MAX_RECORDS = 500;

/** Upcoming and live records, soonest scheduled start first; only `channelId`'s when given (an unknown channel has none). */
export function listQueue(deps: { livestreams: LivestreamRepo }, channelId: string | null = null): Promise<Livestream[]> {
  return deps.livestreams.listQueue(QUEUE_MAX_RECORDS, channelId);
}
