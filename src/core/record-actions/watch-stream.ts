// Decisions: docs/decisions/0020-youtube-through-yt-dlp.md, docs/decisions/0022-final-failure-keeps-what-was-captured.md, docs/decisions/0073-a-queued-record-says-why-it-waits.md, docs/decisions/0088-youtube-ends-only-when-it-says-so.md
import { PermanentError } from '../errors.js';
import { neverLiveDeadline, neverLiveReason } from '../records/lifecycle.js';
import type { Livestream } from '../records/livestream.js';
import type { DetailsChange, LivestreamRepo, WatchLooks } from '../records/ports.js';
import type { Scheduler } from '../scheduler.js';
import type { StreamDetails, StreamSource } from '../sources/ports.js';
import type { ArchiveStore } from '../archive/ports.js';
import type { CaptureCompaction, CaptureStates, ChunkLog, EncoderLog } from '../capture/ports.js';
import { lookAfterEnd } from './go-on-recording.js';

export interface WatchPolicy {
  /** Poll interval around and after the scheduled start. */
  pollSeconds: number;
  /** Give up (status `failed`) when nothing went live this long after the scheduled start. */
  neverLiveSeconds: number;
}

/** What a look at an upcoming record's source runs on, or at a finished one's whose stream may go on. */
export interface WatchDeps {
  livestreams: LivestreamRepo;
  source: StreamSource;
  scheduler: Scheduler;
  watchLooks: WatchLooks;
  captures: CaptureStates & ChunkLog & EncoderLog & CaptureCompaction;
  store: Pick<ArchiveStore, 'delete'>;
}

/**
 * Checks an upcoming record's source once: live (or ended with its fragments still served) →
 * schedule the capture; not yet, or a look that could not say → check again
 * (seldom while the start is far, every `pollSeconds` near and after it), the look kept with what
 * the source answered, for the pages to show; never live, or no access (members-only without a
 * member's cookies) → failed.
 * Throws PermanentError when the source says the video is gone (removed, private). A finished
 * record's look is lookAfterEnd's (its stream may go on).
 */
export async function watchStream(
  deps: WatchDeps,
  id: string,
  policy: WatchPolicy,
  now: Date,
): Promise<'capturing' | 'waiting' | 'failed' | 'let_go' | 'skipped'> {
  const record = await deps.livestreams.findById(id);
  // an archived record's: its capture kept, its stream may go on (decision 0090)
  if (record?.status === 'finished') return lookAfterEnd(deps, id, policy, now);
  if (record === null || record.status !== 'upcoming') return 'skipped';
  const status = await deps.source.check(record.sourceUrl, record.requestedQuality);
  const moved = status.details ? changedDetails(record, status.details) : null;
  if (moved !== null) await deps.livestreams.update(id, moved);
  const scheduledStart = moved?.scheduledStart ?? record.scheduledStart; // the never-live clock follows the schedule
  // live, or ended with its fragments still served (YouTube's post_live): recorded whole
  if (status.state === 'live' || (status.state === 'ended' && status.fragments !== undefined)) {
    await deps.scheduler.capture(id);
    return 'capturing';
  }
  if (status.state === 'gone') throw new PermanentError(`The source says the video is gone: ${status.reason ?? 'removed'}.`);
  // members-only (or sign-in) without access: the stream will not open by waiting for it
  if (status.state === 'no_access') {
    await deps.livestreams.transition(id, { type: 'gave_up', reason: status.reason ?? 'The source gives Kura no access to this stream.' });
    return 'failed';
  }
  if (status.state === 'refused') {
    await deps.livestreams.transition(id, { type: 'gave_up', reason: `Kura will not fetch this source: ${status.reason ?? 'refused'}.` });
    return 'failed';
  }
  // a look that could not say (yt-dlp failing, a rate limit, a bot check) is no end: looked at again, until the never-live deadline
  const over = status.state === 'ended' || status.state === 'not_live';
  if (over || now > neverLiveDeadline(scheduledStart, policy.neverLiveSeconds)) {
    const reason = over ? 'The stream ended before it could be recorded.' : neverLiveReason(policy.neverLiveSeconds, status.reason ?? 'not live');
    await deps.livestreams.transition(id, { type: 'gave_up', reason });
    return 'failed';
  }
  const untilStart = (scheduledStart.getTime() - now.getTime()) / 1000;
  // far from the start: check at half the remaining time, at most hourly; near it: every pollSeconds
  const usual = untilStart > 2 * policy.pollSeconds ? Math.min(3600, untilStart / 2) : policy.pollSeconds;
  const waitSeconds = status.state === 'unknown' ? Math.max(usual, await backedOff(deps, id, policy)) : usual;
  const nextLookAt = new Date(now.getTime() + waitSeconds * 1000);
  await deps.watchLooks.note(id, { lookedAt: now, reason: status.reason ?? null, nextLookAt });
  await deps.scheduler.watch(id, nextLookAt);
  return 'waiting';
}

/** A look that could not say (a rate limit, a bot check, yt-dlp failing) waits twice as long as the one before, up to 15 minutes. */
async function backedOff(deps: Pick<WatchDeps, 'watchLooks'>, id: string, policy: WatchPolicy): Promise<number> {
  const last = (await deps.watchLooks.find([id])).get(id);
  const before = last === undefined ? policy.pollSeconds / 2 : (last.nextLookAt.getTime() - last.lookedAt.getTime()) / 1000;
  return Math.min(MAX_BACKOFF_SECONDS, Math.max(policy.pollSeconds, 2 * before));
}

const MAX_BACKOFF_SECONDS = 900;

/** What the source now says differently of the record (a moved schedule, a new title), or null. */
function changedDetails(record: Livestream, details: StreamDetails): DetailsChange | null {
  const change: DetailsChange = {};
  if (details.scheduledStart !== null && details.scheduledStart.getTime() !== record.scheduledStart.getTime()) change.scheduledStart = details.scheduledStart;
  if (details.title !== '' && details.title !== record.title) change.title = details.title;
  if (details.channelName !== '' && details.channelName !== record.channelName) change.channelName = details.channelName;
  if (details.thumbnailUrl !== null && details.thumbnailUrl !== record.thumbnailUrl) change.thumbnailUrl = details.thumbnailUrl;
  return Object.keys(change).length > 0 ? change : null;
}
