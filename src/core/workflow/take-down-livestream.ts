// Decisions: docs/decisions/0024-admin-takedown-cancel-retry.md
import { requireAdmin, submitterOf, type Caller } from '../accounts/account.js';
import type { AdminActionRepo } from '../accounts/ports.js';
import { AppError } from '../errors.js';
import { getLivestream } from '../livestream/get-livestream.js';
import { objectKeys } from '../archive/object-keys.js';
import type { ArchiveStore } from '../archive/ports.js';
import type { ChunkLog } from '../capture/ports.js';
import type { LivestreamRepo } from '../livestream/ports.js';

/**
 * An admin removes a record: its stored files (video, log, thumbnail, chat, and the chunks of a capture
 * that never became an archive), then the record with its
 * submitters and chat messages, keeping who did it, why, and what the record was in the audit table. A record being
 * recorded is refused until it is finished (an admin cancels it first). Throws `admin_only`, `livestream_not_found`, `capture_in_progress`.
 */
export async function takeDownLivestream(
  deps: { livestreams: LivestreamRepo; captures: ChunkLog; store: ArchiveStore; adminActions: AdminActionRepo },
  request: { caller: Caller; id: string; reason: string },
): Promise<void> {
  requireAdmin(request.caller);
  const record = await getLivestream(deps, request.id);
  if (record.status === 'live') {
    throw new AppError(
      'conflict',
      'capture_in_progress',
      `${record.id} is being recorded: cancel it first (POST /api/video/${record.id}/cancel), then take it down once it is finished.`,
    );
  }
  const keys = new Set([objectKeys.video(record.id), objectKeys.log(record.id), objectKeys.thumbnail(record.id), objectKeys.chat(record.id)]);
  for (const key of [record.archive?.videoKey, record.archive?.logKey, record.archive?.thumbnailKey]) if (key) keys.add(key);
  for (const chunk of await deps.captures.chunks(record.id)) keys.add(chunk.key);
  // files first: a failure leaves the record (and its audit trail) to retry the takedown with
  for (const key of keys) await deps.store.delete(key);
  await deps.adminActions.takeDown(record.id, submitterOf(request.caller.user), request.reason);
}
