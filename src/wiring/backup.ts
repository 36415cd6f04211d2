// Decisions: docs/decisions/0121-backup-format.md
import type { Logger } from 'pino';
import type pg from 'pg';
import { BackupError } from '../adapters/db/backup-format.js';
import { readBackupHeader, restoreBackup, type RestoreSummary } from '../adapters/db/backup-restore.js';
import { takeScheduledBackup } from '../adapters/db/backup-schedule.js';
import { writeBackup, type BackupSummary } from '../adapters/db/backup-write.js';
import type { Config } from '../config/config.js';
import type { ScheduledBackups } from '../jobs/loops/scheduled-backup.js';
import { openDatabase, type Database } from './database.js';
import { migrateToThisRelease, release, thisReleaseMigrations } from './release.js';

/** Why a backup cannot be restored (exit 1 with its message): re-exported for the commands, which reach adapters through wiring. */
export { BackupError };
export type { BackupSummary, RestoreSummary };

/** Writes a backup of `database` to `file` (decision 0121): one snapshot of Kura's tables and the manifest of stored archives. */
export function backUpDatabase(database: Pick<Database, 'pool'>, file: string): Promise<BackupSummary> {
  return writeBackup(database.pool, file, release().version);
}

/**
 * Restores `file` into the instance `config` names: refuses a backup of a schema this release does
 * not know (a newer Kura made it) before touching anything; migrates the database as far as the
 * backup's schema, restores it in one transaction, then migrates it on to this release's schema (as
 * an upgrade does). Returns the migrations applied after the restore.
 */
export async function restoreDatabase(config: Config, log: Logger, file: string, force: boolean): Promise<RestoreSummary & { upgraded: string[] }> {
  const header = await readBackupHeader(file);
  const known = await thisReleaseMigrations();
  const { version } = release();
  if (!known.includes(header.schema))
    throw new BackupError(
      `${file} was made by Kura ${header.kuraVersion}, whose schema (migration ${header.schema}) is newer than this Kura ${version}'s (${known.at(-1) ?? 'none'}): restore it with Kura ${header.kuraVersion} or newer`,
    );
  const database = await openDatabase(config, log, { role: 'command', migrateUpTo: header.schema });
  try {
    const summary = await restoreBackup(database.pool, file, { force });
    const { applied } = await migrateToThisRelease(database.pool);
    return { ...summary, upgraded: applied };
  } finally {
    await database.close();
  }
}

/** The daily backups of a worker (decision 0122); null when KURA_BACKUP_DIR is unset. */
export function createScheduledBackups(config: Config, pool: pg.Pool): ScheduledBackups | null {
  const { dir, keep } = config.backup;
  if (dir === null) return null;
  return {
    async takeIfDue(now) {
      const taken = await takeScheduledBackup({ pool, dir, keep, kuraVersion: release().version }, now);
      if (taken === null) return null;
      const { file, bytes, rows, archives } = taken.backup;
      return { file, bytes, rows, archives, removed: taken.removed };
    },
  };
}
