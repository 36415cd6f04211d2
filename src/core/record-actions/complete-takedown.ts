// Decisions: docs/decisions/0024-admin-takedown-cancel-retry.md
import type { AdminActionRepo } from '../accounts/ports.js';
import type { ArchiveStore } from '../archive/ports.js';
import { isRecording } from '../capture/capture-lifecycle.js';
import type { CaptureLease, CaptureStates, ChunkLog, Spool } from '../capture/ports.js';
import type { LivestreamRepo } from '../records/ports.js';
import type { SweepRepo } from './ports.js';
import { removeRecord } from './take-down-livestream.js';

export type CompleteTakedownDeps = {
  livestreams: LivestreamRepo;
  captures: CaptureLease & CaptureStates & ChunkLog;
  store: ArchiveStore;
  spool: Spool;
  adminActions: AdminActionRepo;
};

/**
 * Completes a takedown asked while the record was recorded (see takeDownLivestream), on a worker:
 * once its capture is no longer recording and no other worker finalizes it (the finalize lease,
 * taken as `lease.workerId`), it removes the capture's working files on this worker's disk, the
 * stored objects and the record, writing the audit row with the admin and reason kept on it.
 * `none`: no takedown is pending (or the record is gone); `waiting`: the capture still records, or
 * another worker finalizes it (the finalize, or the sweep, completes it later); `done`. Throws when
 * an object cannot be deleted: the takedown stays pending, to be tried again.
 */
export async function completeTakedown(
  deps: CompleteTakedownDeps,
  id: string,
  lease: { workerId: string; staleAfterSeconds: number },
): Promise<'none' | 'waiting' | 'done'> {
  const record = await deps.livestreams.findById(id);
  if (record === null || record.takedown === null) return 'none';
  const capture = await deps.captures.get(id);
  // a failed record's capture left recording is not recorded any more (no capture job runs for it)
  if (capture !== null && isRecording(capture.state) && record.status === 'live') return 'waiting';
  // an ended capture is finalize's: holding its lease keeps a finalize from storing objects meanwhile
  if (capture?.state === 'ended' && (await deps.captures.claimFinalize(id, lease.workerId, lease.staleAfterSeconds)) === null) return 'waiting';
  await deps.spool.remove(id);
  await removeRecord(deps, record, record.takedown);
  return 'done';
}

/**
 * The sweep's share (run before its repairs): completes the takedowns asked more than
 * `olderThanSeconds` ago that no finalize completed (its worker lost, its job failed for good, a
 * record without a capture), at most `batch` of them. A takedown that fails stays pending for the
 * next sweep; the ids completed are returned.
 */
export async function completePendingTakedowns(
  deps: CompleteTakedownDeps & { sweep: Pick<SweepRepo, 'pendingTakedowns'> },
  policy: { olderThanSeconds: number; batch: number; workerId: string; staleAfterSeconds: number },
  onError: (id: string, error: Error) => void,
): Promise<string[]> {
  const done: string[] = [];
  for (const id of await deps.sweep.pendingTakedowns(policy.olderThanSeconds, policy.batch)) {
    try {
      if ((await completeTakedown(deps, id, policy)) === 'done') done.push(id);
    } catch (error) {
      onError(id, error as Error);
    }
  }
  return done;
}
