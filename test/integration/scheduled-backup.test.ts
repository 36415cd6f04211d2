import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBackupHeader } from '../../src/adapters/db/backup-restore.js';
import { backupName, takeScheduledBackup } from '../../src/adapters/db/backup-schedule.js';
import { startScheduledBackupLoop } from '../../src/jobs/loops/scheduled-backup.js';
import { WorkerActivity } from '../../src/shared/worker-activity.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { buildRecords } from '../support/factories.js';
import { importLivestreams } from '../../src/core/records/import-livestreams.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await importLivestreams(db, buildRecords(3));
});
afterAll(() => db?.drop());

const day = (iso: string) => new Date(iso);

describe('the scheduled backup', () => {
  it('takes one backup a UTC day into KURA_BACKUP_DIR and keeps the newest KURA_BACKUP_KEEP, leaving other files alone', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'kura-backups-'));
    const older = ['2026-11-20T00:10:00Z', '2026-11-21T00:10:00Z', '2026-11-22T00:10:00Z', '2026-11-23T00:10:00Z'].map((at) => backupName(day(at)));
    for (const name of older) await writeFile(path.join(dir, name), 'an older backup');
    await writeFile(path.join(dir, 'notes.txt'), 'not a backup');
    const options = { pool: db.pool, dir, keep: 3, kuraVersion: '0.7.0' };

    const first = await takeScheduledBackup(options, day('2026-11-30T00:15:00Z'));
    expect(first?.backup).toMatchObject({ file: path.join(dir, 'kura-backup-20261130T001500Z.jsonl.gz'), archives: 0 });
    expect(first?.removed).toEqual([older[1], older[0]]);
    expect((await readdir(dir)).sort()).toEqual([...older.slice(2), 'kura-backup-20261130T001500Z.jsonl.gz', 'notes.txt'].sort());
    expect(await readBackupHeader(path.join(dir, 'kura-backup-20261130T001500Z.jsonl.gz'))).toMatchObject({ kuraVersion: '0.7.0' });

    // later the same UTC day: nothing is due; the next day, the next backup
    expect(await takeScheduledBackup(options, day('2026-11-30T23:59:00Z'))).toBeNull();
    const next = await takeScheduledBackup(options, day('2026-12-01T00:05:00Z'));
    expect(next?.removed).toEqual([older[2]]);
    expect((await readdir(dir)).sort()).toEqual(
      [older[3], 'kura-backup-20261130T001500Z.jsonl.gz', 'kura-backup-20261201T000500Z.jsonl.gz', 'notes.txt'].sort(),
    );
  });

  it('makes its folder, and is left to the worker holding the lock when two workers share it', async () => {
    const dir = path.join(await mkdtemp(path.join(os.tmpdir(), 'kura-backups-')), 'made', 'here');
    const holder = await db.pool.connect();
    try {
      await holder.query(`select pg_advisory_lock(hashtextextended($1, 0))`, [`kura-backup:${dir}`]);
      expect(await takeScheduledBackup({ pool: db.pool, dir, keep: 7, kuraVersion: '0.7.0' }, new Date())).toBeNull();
      await holder.query(`select pg_advisory_unlock(hashtextextended($1, 0))`, [`kura-backup:${dir}`]);
      const taken = await takeScheduledBackup({ pool: db.pool, dir, keep: 7, kuraVersion: '0.7.0' }, new Date());
      expect(taken?.backup.rows).toBeGreaterThan(0);
      expect(await readdir(dir)).toHaveLength(1);
    } finally {
      holder.release();
    }
  });

  it('logs each backup taken, and logs and counts a failure', async () => {
    const logged: string[] = [];
    const activity = new WorkerActivity();
    const log = {
      info: (_: object, message: string) => void logged.push(`info ${message}`),
      warn: (_: object, message: string) => void logged.push(`warn ${message}`),
    };
    const outcomes = [{ file: '/backups/a.jsonl.gz', bytes: 10, rows: 3, archives: 1, removed: [] }, new Error('ENOSPC: no space left on device')];
    let looked = 0;
    const backups = {
      async takeIfDue() {
        const outcome = outcomes[looked++];
        if (outcome instanceof Error) throw outcome;
        return outcome ?? null;
      },
    };
    // a loop looks at its start, and its stop waits for the look in flight
    for (let i = 0; i < outcomes.length; i += 1) await startScheduledBackupLoop({ backups, log, activity }, { everySeconds: 3600 })();
    expect(logged).toEqual([
      'info backup taken: /backups/a.jsonl.gz (3 rows, 1 archives listed, 10 bytes)',
      'warn backup failed (tried again within the hour): ENOSPC: no space left on device',
    ]);
    expect(activity.backups).toEqual({ taken: 1, failed: 1 });
  });
});
