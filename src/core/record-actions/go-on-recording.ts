// Decisions: docs/decisions/0090-a-stream-that-goes-on.md
import type { ArchiveStore } from '../archive/ports.js';
import { deleteChunks } from '../capture/finalize-archive.js';
import { fragmentOf } from '../capture/fragment-tracks.js';
import type { Capture } from '../capture/capture.js';
import type { CaptureCompaction, CaptureStates, ChunkLog, EncoderLog } from '../capture/ports.js';
import type { Livestream } from '../records/livestream.js';
import type { LivestreamRepo } from '../records/ports.js';
import type { Scheduler } from '../scheduler.js';
import type { StreamSource } from '../sources/ports.js';

/** What it takes to tell whether a kept capture's stream went on, and to go on recording it. */
export interface GoOnDeps {
  livestreams: LivestreamRepo;
  captures: CaptureStates & EncoderLog;
  source: StreamSource;
  scheduler: Scheduler;
}

/**
 * What the source says now of a kept capture's stream: `more` (live, or ended with its fragments
 * still served, and its newest fragment past what the capture stored), `not_now` (not yet, or
 * could not say), or `never` (ended with nothing past what was stored, or gone).
 */
export type WhatFollows = { verdict: 'more' | 'not_now' | 'never'; reason: string };

export async function whatFollows(deps: Pick<GoOnDeps, 'source'>, record: Livestream, capture: Capture): Promise<WhatFollows> {
  const status = await deps.source.check(record.sourceUrl, record.requestedQuality, { newest: true });
  const reason = status.reason ?? status.state;
  const next = fragmentOf(capture.nextSequence ?? 0);
  if (status.state === 'live' || (status.state === 'ended' && status.fragments !== undefined)) {
    const newest = status.newestFragment;
    if (newest !== undefined && newest >= next)
      return { verdict: 'more', reason: `the source serves fragments up to ${newest}; ${next} is the next to record` };
    const none = `the source serves no fragment past ${next - 1}, the last recorded`;
    if (status.state === 'ended' && newest !== undefined) return { verdict: 'never', reason: `${reason}; ${none}` };
    return { verdict: 'not_now', reason: newest === undefined ? `${reason}; its newest fragment could not be asked` : `still live; ${none}` };
  }
  if (status.state === 'ended' || status.state === 'gone') return { verdict: 'never', reason };
  return { verdict: 'not_now', reason };
}

/**
 * Goes on recording a finished record whose capture was kept, as one record and one archive: the
 * record is live again and its capture records from its next fragment (one commit), on any
 * worker; finalize then makes the archive again of everything. Says so in the encoder log.
 */
export async function goOnRecording(deps: Pick<GoOnDeps, 'livestreams' | 'captures' | 'scheduler'>, id: string, why: string): Promise<void> {
  await deps.livestreams.transition(id, { type: 'continued' });
  await deps.captures.appendLog(id, [`[kura] the stream went on (${why}): recording goes on from the next fragment, in the same record`]);
  await deps.scheduler.capture(id);
}

/** How often a kept capture's stream is looked at: every `pollSeconds` at first, then at half the time since it ended, at most hourly. */
export interface LookAfterEndPolicy {
  pollSeconds: number;
}

/**
 * One look at the stream of a finished record whose capture was kept: it went on → recording goes
 * on; it never will, or the capture was kept its whole time → the chunks are deleted (`let_go`);
 * else it is looked at again later. `skipped` when the record or its capture is no longer so.
 */
export async function lookAfterEnd(
  deps: GoOnDeps & { captures: ChunkLog & CaptureCompaction; store: Pick<ArchiveStore, 'delete'> },
  id: string,
  policy: LookAfterEndPolicy,
  now: Date,
): Promise<'capturing' | 'waiting' | 'let_go' | 'skipped'> {
  const record = await deps.livestreams.findById(id);
  const capture = await deps.captures.get(id);
  // let go before, its chunks perhaps not all deleted: deleting them again is harmless
  if (record?.status === 'finished' && capture?.state === 'finalized') return deleteChunks(deps, id).then(() => 'skipped');
  if (record?.status !== 'finished' || capture?.state !== 'kept' || capture.keptUntil === null) return 'skipped';
  if (now >= capture.keptUntil) return letGo(deps, id, 'Kura has looked at it for as long as it keeps a stream that may go on');
  const next = await whatFollows(deps, record, capture);
  if (next.verdict === 'more') {
    await goOnRecording(deps, id, next.reason);
    return 'capturing';
  }
  if (next.verdict === 'never') return letGo(deps, id, next.reason);
  const sinceEnd = (now.getTime() - (capture.endedAt ?? now).getTime()) / 1000;
  const waitSeconds = Math.min(3600, Math.max(policy.pollSeconds, sinceEnd / 2));
  await deps.scheduler.watch(id, new Date(Math.min(now.getTime() + waitSeconds * 1000, capture.keptUntil.getTime())));
  return 'waiting';
}

/** The kept capture's stream will not go on: the capture is finalized and its chunks deleted (idempotent: a failure is retried with the job). */
async function letGo(
  deps: { captures: CaptureStates & ChunkLog & EncoderLog & CaptureCompaction; store: Pick<ArchiveStore, 'delete'> },
  id: string,
  why: string,
): Promise<'let_go'> {
  if (await deps.captures.letGo(id)) await deps.captures.appendLog(id, [`[kura] the stream did not go on (${why}): its kept chunks are deleted`]);
  await deps.captures.compact(id);
  await deleteChunks(deps, id);
  return 'let_go';
}
