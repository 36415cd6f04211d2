import path from 'node:path';
import { createArchiveCheckRepo } from '../adapters/db/archive-check-repo.js';
import { createUploadJournal } from '../adapters/db/upload-journal.js';
import { createFsStore } from '../adapters/storage/fs-store.js';
import type { Config } from '../config/config.js';
import type { ArchiveStore } from '../core/archive/ports.js';
import type { LivestreamRepo } from '../core/records/ports.js';
import type { VerifyArchivesDeps, VerifyPolicy } from '../core/archive/verify-archives.js';
import type { Database } from './database.js';

/** Where the fs store keeps archives (KURA_STORAGE=fs): `dataDir/archive`. */
export function archiveDirOf(config: Pick<Config, 'dataDir'>): string {
  return path.join(config.dataDir, 'archive');
}

/** Where a worker keeps what it captures before it is stored: `dataDir/spool`. */
export function spoolDirOf(config: Pick<Config, 'dataDir'>): string {
  return path.join(config.dataDir, 'spool');
}

/**
 * The archive store `KURA_STORAGE` names: `dataDir/archive`, or the S3 bucket. The S3 store's
 * module, with the AWS SDK, is loaded only for S3: loading the SDK is a good part of a process's
 * start, which a restarted worker waits for before it takes its captures back.
 */
export async function createStore(config: Config, database: Database): Promise<ArchiveStore> {
  if (config.storage.kind !== 's3') return createFsStore(archiveDirOf(config));
  const { createS3Store } = await import('../adapters/storage/s3-store.js');
  return createS3Store(config.storage, { journal: createUploadJournal(database.pool) });
}

/** What archive verification reads and writes: the store, the records and their checks. */
export function createVerifyDeps(database: Database, store: ArchiveStore): VerifyArchivesDeps & { livestreams: LivestreamRepo } {
  return { store, checks: createArchiveCheckRepo(database.pool), livestreams: database.livestreams };
}

/** How much one scheduled verification run does (KURA_VERIFY_*). */
export function verifyPolicy(config: Pick<Config, 'verify'>): VerifyPolicy {
  return { everyDays: config.verify.everyDays, bytesPerRun: config.verify.bytesPerHour };
}
