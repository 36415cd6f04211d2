// Decisions: docs/decisions/0024-admin-takedown-cancel-retry.md
import { requireAdmin, submitterOf, type Caller } from '../accounts/account.js';
import type { AdminActionRepo } from '../accounts/ports.js';
import { AppError } from '../errors.js';
import type { CaptureStates, ChunkLog, EncoderLog } from '../capture/ports.js';
import { objectKeys } from '../archive/object-keys.js';
import type { ArchiveStore } from '../archive/ports.js';
import type { Livestream, PendingTakedown } from '../records/livestream.js';
import type { LivestreamRepo } from '../records/ports.js';

export type TakeDownDeps = {
  livestreams: LivestreamRepo;
  captures: ChunkLog & CaptureStates & EncoderLog;
  store: ArchiveStore;
  adminActions: AdminActionRepo;
};

/** What a takedown came to: the record is gone, or (being recorded) it is stopped and removed once its capture ends. */
export type TakedownOutcome = { outcome: 'removed' } | { outcome: 'pending'; id: string; takedown: PendingTakedown };

/**
 * An admin removes a record: its stored files (video, log, thumbnail, chat, and the chunks of a
 * capture that never became an archive), then the record with its submitters and chat messages,
 * keeping who did it, why, and what the record was in the audit table. A record being recorded is
 * taken down in two steps: the takedown is noted on it (from then on it is not served) and its
 * capture asked to stop, as a cancel does; once the capture has ended, a worker removes it
 * (completeTakedown, in place of its finalize). Asked again meanwhile, the answer is the same
 * pending takedown. Throws `admin_only`, `livestream_not_found`.
 */
export async function takeDownLivestream(deps: TakeDownDeps, request: { caller: Caller; id: string; reason: string }): Promise<TakedownOutcome> {
  requireAdmin(request.caller);
  const by = submitterOf(request.caller.user);
  let record = await deps.livestreams.findById(request.id);
  if (record === null) throw new AppError('not_found', 'livestream_not_found', `No livestream has the id "${request.id}".`);
  if (record.status === 'live') {
    await deps.adminActions.requestTakeDown(record.id, by, request.reason);
    // through PostgreSQL, as a cancel: the worker recording it reads it at its next heartbeat
    if (await deps.captures.requestStop(record.id, `${by} (takedown: ${request.reason})`)) {
      await deps.captures.appendLog(record.id, [`[kura] ${by} asked to stop the capture to take the record down: ${request.reason}`]);
    }
    // read again: a finalize that ended meanwhile left no worker to see the takedown, so it is done here
    record = await deps.livestreams.findById(record.id);
    if (record === null) return { outcome: 'removed' };
    if (record.status === 'live') return { outcome: 'pending', id: record.id, takedown: record.takedown as PendingTakedown };
  }
  await removeRecord(deps, record, { admin: by, reason: request.reason });
  return { outcome: 'removed' };
}

/**
 * Deletes a record's stored objects (video, log, thumbnail, chat, the recent frame of its recording: the keys the record names and
 * the standard keys; the chunks of its capture), then, in one transaction, writes the audit row
 * and deletes the record. Files first: a failure leaves the record (and what it says) to retry the
 * takedown with. False when the record was gone already (removed by another takedown meanwhile).
 */
export async function removeRecord(
  deps: { captures: ChunkLog; store: ArchiveStore; adminActions: AdminActionRepo },
  record: Livestream,
  by: { admin: string; reason: string },
): Promise<boolean> {
  const keys = new Set([
    objectKeys.video(record.id),
    objectKeys.log(record.id),
    objectKeys.thumbnail(record.id),
    objectKeys.chat(record.id),
    objectKeys.liveFrame(record.id),
  ]);
  for (const key of [record.archive?.videoKey, record.archive?.logKey, record.archive?.thumbnailKey]) if (key) keys.add(key);
  for (const chunk of await deps.captures.chunks(record.id)) keys.add(chunk.key);
  for (const key of keys) await deps.store.delete(key);
  return deps.adminActions.takeDown(record.id, by.admin, by.reason);
}
