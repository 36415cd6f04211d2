import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFsStore } from '../../src/adapters/storage/fs-store.js';
import { importLivestreams } from '../../src/core/records/import-livestreams.js';
import { storeArchive } from '../support/archives.js';
import { runKura } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { buildRecords } from '../support/factories.js';

// The built `kura backup`, `kura restore` and `kura verify --all` on real databases and the fs store
// of one data directory: the restored instance's archives are the same store's.
let cwd: string;
let source: TestDatabase;
let target: TestDatabase;
beforeEach(async () => {
  cwd = await mkdtemp(path.join(os.tmpdir(), 'kura-backup-cli-'));
  source = await createTestDatabase();
  target = await createTestDatabase({ migrated: false });
});
afterEach(async () => {
  await source.drop();
  await target.drop();
});

const kura = (db: TestDatabase, ...args: string[]) => runKura(args, { DATABASE_URL: db.url, LOG_LEVEL: 'warn' }, cwd);

describe('kura backup and kura restore', () => {
  it('back up an instance and restore it into an empty database, whose archives then verify in the same store', async () => {
    const store = createFsStore(path.join(cwd, 'data', 'archive'));
    await importLivestreams(source, buildRecords(4, { unfinishedEvery: 2 }));
    await storeArchive(store, source.livestreams, 'cli-one');
    await storeArchive(store, source.livestreams, 'cli-two');

    const backup = await kura(source, 'backup', 'kura.jsonl.gz');
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stdout).toMatch(
      /^kura: backed up \d+ rows of \d+ tables \(schema \d{4}_\w+\) and a manifest of 2 stored archives to kura\.jsonl\.gz \(\d+ bytes\) in /,
    );

    const restore = await kura(target, 'restore', 'kura.jsonl.gz');
    expect(restore.code, restore.stderr).toBe(0);
    expect(restore.stdout).toMatch(/^kura: restored \d+ rows of \d+ tables from kura\.jsonl\.gz \(taken \S+ by Kura \d+\.\d+\.\d+\)\n/);
    expect(restore.stdout).toContain('the backup lists 2 stored archives');
    const { rows } = await target.pool.query('select id, status from livestreams order by id');
    expect(rows).toEqual((await source.pool.query('select id, status from livestreams order by id')).rows);

    const verify = await kura(target, 'verify', '--all');
    expect(verify.code, verify.stdout).toBe(0);
    expect(verify.stdout).toContain('kura: verified 2 archives (2 sha256 checks, 131072 bytes read): 2 ok, 0 missing, 0 corrupt');

    const again = await kura(target, 'restore', 'kura.jsonl.gz');
    expect([again.code, again.stdout]).toEqual([1, '']);
    expect(again.stderr).toMatch(/^kura: cannot restore kura\.jsonl\.gz: this instance is not empty \(6 livestreams, 0 users, 0 follows, 0 webhooks\)/m);
    const forced = await kura(target, 'restore', 'kura.jsonl.gz', '--force');
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toContain(', replacing what the instance held');
  });

  it('say what is wrong: no file, a file that is not a backup, a folder that is not there', async () => {
    const usage = await kura(target, 'restore');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/^kura: restore takes exactly one FILE \(and --force to replace what the instance holds\)$/m);
    await writeFile(path.join(cwd, 'history.json'), '[]');
    const notBackup = await kura(target, 'restore', 'history.json');
    expect(notBackup.code).toBe(1);
    expect(notBackup.stderr).toContain('kura: cannot restore history.json: history.json is damaged or not a Kura backup (incorrect header check)');
    const nowhere = await kura(source, 'backup', 'no/such/folder/kura.jsonl.gz');
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toMatch(/^kura: ENOENT: no such file or directory/m);
  });
});
