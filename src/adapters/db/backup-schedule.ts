// Decisions: docs/decisions/0122-scheduled-backups.md
import { mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import { writeBackup, type BackupSummary } from './backup-write.js';

/** A scheduled backup's name: the UTC time it was taken, so names sort by age. */
const NAME = /^kura-backup-(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z\.jsonl\.gz$/;

export interface ScheduledBackupsOptions {
  pool: pg.Pool;
  /** KURA_BACKUP_DIR. */
  dir: string;
  /** KURA_BACKUP_KEEP: the newest this many are kept. */
  keep: number;
  kuraVersion: string;
}

/** What one scheduled backup did: the backup written and the older ones removed (null: another worker is writing today's). */
export type ScheduledBackup = { backup: BackupSummary; removed: string[] } | null;

/** The name of the backup taken at `at`: `kura-backup-20261130T001500Z.jsonl.gz`. */
export function backupName(at: Date): string {
  return `kura-backup-${at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}Z$/, 'Z')}.jsonl.gz`;
}

/** The scheduled backups in `dir`, newest first, by the time in their names (other files are not Kura's to touch). */
export async function listBackups(dir: string): Promise<Array<{ name: string; takenAt: Date }>> {
  const names = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[];
    throw error;
  });
  return names
    .flatMap((name) => {
      const m = NAME.exec(name);
      return m === null ? [] : [{ name, takenAt: new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!)) }];
    })
    .sort((a, b) => b.takenAt.getTime() - a.takenAt.getTime());
}

/** Whether `dir` holds no backup taken since the start of `now`'s UTC day. */
export async function backupDue(dir: string, now: Date): Promise<boolean> {
  const newest = (await listBackups(dir))[0];
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return newest === undefined || newest.takenAt.getTime() < today;
}

/** Removes all but the newest `keep` scheduled backups in `dir`; returns the names removed. */
export async function pruneBackups(dir: string, keep: number): Promise<string[]> {
  const old = (await listBackups(dir)).slice(keep).map((b) => b.name);
  for (const name of old) await rm(path.join(dir, name), { force: true });
  return old;
}

/**
 * Takes today's backup into `dir` when none was taken since the start of the UTC day, then keeps
 * the newest `keep`. Workers sharing `dir` take turns under a session advisory lock named after it;
 * one that finds the lock held leaves the day's backup to the holder.
 */
export async function takeScheduledBackup(options: ScheduledBackupsOptions, now: Date): Promise<ScheduledBackup> {
  const client = await options.pool.connect();
  try {
    const { rows } = await client.query<{ locked: boolean }>(`select pg_try_advisory_lock(hashtextextended($1, 0)) as locked`, [
      `kura-backup:${path.resolve(options.dir)}`,
    ]);
    if (rows[0]?.locked !== true) return null;
    try {
      if (!(await backupDue(options.dir, now))) return null;
      await mkdir(options.dir, { recursive: true, mode: 0o700 });
      const backup = await writeBackup(options.pool, path.join(options.dir, backupName(now)), options.kuraVersion);
      return { backup, removed: await pruneBackups(options.dir, options.keep) };
    } finally {
      await client.query(`select pg_advisory_unlock(hashtextextended($1, 0))`, [`kura-backup:${path.resolve(options.dir)}`]);
    }
  } finally {
    client.release();
  }
}
