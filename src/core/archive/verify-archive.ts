// Decisions: docs/decisions/0052-archive-integrity.md
import { createHash } from 'node:crypto';
import type { ArchiveCheckRepo, StoredArchive } from './integrity.js';
import type { Integrity } from '../vocabulary.js';
import type { ArchiveStore } from './ports.js';

export interface VerifyDeps {
  store: Pick<ArchiveStore, 'stat' | 'read'>;
  checks: Pick<ArchiveCheckRepo, 'record'>;
}

/** What one check of one archive found. */
export interface Finding {
  id: string;
  /** `error`: the store could not be asked (an outage): nothing was written to the record. */
  result: Integrity | 'error';
  /** The record's integrity before this check. */
  previous: Integrity | null;
  /** Whether the whole object was read and its sha256 compared. */
  hashed: boolean;
  bytesRead: number;
  /** Why, in words: what was found, or the store's error. */
  detail: string;
}

/**
 * Checks one stored archive: the object exists and its size is the record's; with `hash`, its
 * sha256 is read back (streamed) and compared too. Notes the finding on the record. A store that
 * cannot be asked yields `error` and changes nothing: an outage does not flag archives.
 */
export async function verifyArchive(deps: VerifyDeps, archive: StoredArchive, options: { hash: boolean }): Promise<Finding> {
  let inspected: Inspection;
  try {
    inspected = await inspect(deps.store, archive, options.hash && archive.sha256 !== null);
  } catch (error) {
    return {
      id: archive.id,
      result: 'error',
      previous: archive.integrity,
      hashed: false,
      bytesRead: 0,
      detail: `could not be checked: ${(error as Error).message}`,
    };
  }
  await deps.checks.record(archive, { integrity: inspected.integrity, at: new Date(), hashed: inspected.hashed });
  return { id: archive.id, result: inspected.integrity, previous: archive.integrity, ...inspected };
}

interface Inspection {
  integrity: Integrity;
  hashed: boolean;
  bytesRead: number;
  detail: string;
}

async function inspect(store: VerifyDeps['store'], archive: StoredArchive, hash: boolean): Promise<Inspection> {
  const key = archive.videoKey;
  const missing: Inspection = { integrity: 'missing', hashed: false, bytesRead: 0, detail: `the object ${key} is not in storage` };
  const object = await store.stat(key);
  if (object === null) return missing;
  if (object.bytes !== archive.fileSizeBytes) {
    return { integrity: 'corrupt', hashed: false, bytesRead: 0, detail: `${key} holds ${object.bytes} bytes; the record says ${archive.fileSizeBytes}` };
  }
  if (!hash) return { integrity: 'ok', hashed: false, bytesRead: 0, detail: `${key} exists with the recorded size (${object.bytes} bytes)` };
  const digest = createHash('sha256');
  let bytesRead = 0;
  try {
    for await (const chunk of await store.read(key)) {
      digest.update(chunk as Buffer);
      bytesRead += (chunk as Buffer).length;
    }
  } catch (error) {
    // deleted while it was read: missing; anything else is the store's failure, not the archive's
    if ((await store.stat(key)) === null) return missing;
    throw error;
  }
  const sha256 = digest.digest('hex');
  if (sha256 !== archive.sha256) {
    return { integrity: 'corrupt', hashed: true, bytesRead, detail: `the sha256 of ${key} is ${sha256}; the record says ${archive.sha256}` };
  }
  return { integrity: 'ok', hashed: true, bytesRead, detail: `${key} has the recorded size and sha256 (${bytesRead} bytes read)` };
}
