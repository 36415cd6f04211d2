// Decisions: docs/decisions/0024-admin-takedown-cancel-retry.md
import type { AdminActionRepo } from '../accounts/ports.js';
import { objectKeys } from '../archive/object-keys.js';
import type { ArchiveStore } from '../archive/ports.js';
import type { ChunkLog } from '../capture/ports.js';
import type { Livestream } from '../livestream/livestream.js';

/**
 * Deletes a record's stored objects (video, log, thumbnail, chat: the keys the record names and
 * the standard keys; the chunks of its capture), then, in one transaction, writes the audit row
 * and deletes the record. Files first: a failure leaves the record (and what it says) to retry the
 * takedown with. False when the record was gone already (removed by another takedown meanwhile).
 */
export async function removeRecord(
  deps: { captures: ChunkLog; store: ArchiveStore; adminActions: AdminActionRepo },
  record: Livestream,
  by: { admin: string; reason: string },
): Promise<boolean> {
  const keys = new Set([objectKeys.video(record.id), objectKeys.log(record.id), objectKeys.thumbnail(record.id), objectKeys.chat(record.id)]);
  for (const key of [record.archive?.videoKey, record.archive?.logKey, record.archive?.thumbnailKey]) if (key) keys.add(key);
  for (const chunk of await deps.captures.chunks(record.id)) keys.add(chunk.key);
  for (const key of keys) await deps.store.delete(key);
  return deps.adminActions.takeDown(record.id, by.admin, by.reason);
}
