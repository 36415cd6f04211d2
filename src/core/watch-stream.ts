import type { Livestream } from './livestream.js';
import type { LivestreamChange, LivestreamRepo, Scheduler, StreamDetails, StreamSource } from './ports.js';

export interface WatchPolicy {
  /** Poll interval around and after the scheduled start. */
  pollSeconds: number;
  /** Give up (status `failed`) when nothing went live this long after the scheduled start. */
  neverLiveSeconds: number;
}

/**
 * Checks an upcoming record's source once: live → schedule the capture; not yet → check again
 * (seldom while the start is far, every `pollSeconds` near and after it); never live → failed.
 */
export async function watchStream(
  deps: { livestreams: LivestreamRepo; source: StreamSource; scheduler: Scheduler },
  id: string,
  policy: WatchPolicy,
  now: Date,
): Promise<'capturing' | 'waiting' | 'failed' | 'skipped'> {
  const record = await deps.livestreams.findById(id);
  if (record === null || record.status !== 'upcoming') return 'skipped';
  const status = await deps.source.check(record.sourceUrl, record.requestedQuality);
  const moved = status.details ? changedDetails(record, status.details) : null;
  if (moved !== null) await deps.livestreams.update(id, moved);
  const scheduledStart = moved?.scheduledStart ?? record.scheduledStart; // the never-live clock follows the schedule
  if (status.state === 'live') {
    await deps.scheduler.capture(id);
    return 'capturing';
  }
  if (status.state === 'refused') {
    await deps.livestreams.update(id, { status: 'failed', failureReason: `Kura will not fetch this source: ${status.reason ?? 'refused'}.` });
    return 'failed';
  }
  const sinceStart = (now.getTime() - scheduledStart.getTime()) / 1000;
  if (status.state === 'ended' || sinceStart > policy.neverLiveSeconds) {
    const reason =
      status.state === 'ended'
        ? 'The stream ended before it could be recorded.'
        : `No stream appeared within ${Math.round(policy.neverLiveSeconds / 3600)} h of the scheduled start (${status.reason ?? 'not live'}).`;
    await deps.livestreams.update(id, { status: 'failed', failureReason: reason });
    return 'failed';
  }
  const untilStart = -sinceStart;
  // far from the start: check at half the remaining time, at most hourly; near it: every pollSeconds
  const waitSeconds = untilStart > 2 * policy.pollSeconds ? Math.min(3600, untilStart / 2) : policy.pollSeconds;
  await deps.scheduler.watch(id, new Date(now.getTime() + waitSeconds * 1000));
  return 'waiting';
}

/** What the source now says differently of the record (a moved schedule, a new title), or null. */
function changedDetails(record: Livestream, details: StreamDetails): LivestreamChange | null {
  const change: LivestreamChange = {};
  if (details.scheduledStart !== null && details.scheduledStart.getTime() !== record.scheduledStart.getTime()) change.scheduledStart = details.scheduledStart;
  if (details.title !== '' && details.title !== record.title) change.title = details.title;
  if (details.channelName !== '' && details.channelName !== record.channelName) change.channelName = details.channelName;
  if (details.thumbnailUrl !== null && details.thumbnailUrl !== record.thumbnailUrl) change.thumbnailUrl = details.thumbnailUrl;
  return Object.keys(change).length > 0 ? change : null;
}
