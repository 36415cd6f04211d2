// Decisions: docs/decisions/0006-history-queue-and-stats.md
import type { Livestream } from './livestream.js';
import type { LivestreamRepo, WatchLook, WatchLooks } from './ports.js';

/** The queue is shown whole; this bounds one response. */
export const QUEUE_MAX_RECORDS = 500;

/** Upcoming and live records, soonest scheduled start first; only `channelId`'s when given (an unknown channel has none). */
export function listQueue(deps: { livestreams: LivestreamRepo }, channelId: string | null = null): Promise<Livestream[]> {
  return deps.livestreams.listQueue(QUEUE_MAX_RECORDS, channelId);
}

/** A queued record with the last look at its source while it is upcoming (null before the first, and once live). */
export interface QueuedRecord {
  record: Livestream;
  lastLook: WatchLook | null;
}

/** The queue as its page shows it: each upcoming record with what its source answered last. */
export async function listQueueWithLooks(
  deps: { livestreams: LivestreamRepo; watchLooks: WatchLooks },
  channelId: string | null = null,
): Promise<QueuedRecord[]> {
  const records = await listQueue(deps, channelId);
  const looks = await deps.watchLooks.find(records.filter((r) => r.status === 'upcoming').map((r) => r.id));
  return records.map((record) => ({ record, lastLook: looks.get(record.id) ?? null }));
}
