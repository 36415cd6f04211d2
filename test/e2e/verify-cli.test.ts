import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFsStore } from '../../src/adapters/storage/fs-store.js';
import { objectKeys } from '../../src/core/archive/object-keys.js';
import type { ArchiveStore } from '../../src/core/archive/ports.js';
import { externalArchive, finishedRecord, flipOneByte, putObject, storeArchive } from '../support/archives.js';
import { runKura } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

// The built `kura verify` on a real database and the fs store of its data directory.
let cwd: string;
let db: TestDatabase;
let store: ArchiveStore;
beforeEach(async () => {
  cwd = await mkdtemp(path.join(os.tmpdir(), 'kura-verify-cli-'));
  db = await createTestDatabase();
  store = createFsStore(path.join(cwd, 'data', 'archive'));
});
afterEach(() => db.drop());

const verify = (...args: string[]) => runKura(['verify', ...args], { DATABASE_URL: db.url, LOG_LEVEL: 'warn' }, cwd);

describe('kura verify', () => {
  it('prints each finding and a summary, and exits 1 once an archive is missing or corrupt', async () => {
    await storeArchive(store, db.livestreams, 'cli-fine');
    const flipped = await storeArchive(store, db.livestreams, 'cli-flipped');
    const one = await verify('cli-fine');
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toMatch(/^ok\s+cli-fine\s+archives\/cli-fine\/cli-fine\.mp4 has the recorded size and sha256/m);
    expect(one.stdout).toContain('kura: verified 1 archives (1 sha256 checks, 65536 bytes read): 1 ok, 0 missing, 0 corrupt');

    await putObject(store, objectKeys.video('cli-flipped'), flipOneByte(flipped));
    await store.delete(objectKeys.video('cli-fine'));
    const all = await verify('--all');
    expect(all.code).toBe(1);
    expect(all.stdout).toMatch(/^missing\s+cli-fine\s+the object archives\/cli-fine\/cli-fine\.mp4 is not in storage$/m);
    expect(all.stdout).toMatch(/^corrupt\s+cli-flipped\s+the sha256 of/m);
    expect(all.stdout).toContain('0 ok, 1 missing, 1 corrupt');
    const { rows } = await db.pool.query(`select id, integrity from livestreams order by id`);
    expect(rows).toEqual([
      { id: 'cli-fine', integrity: 'missing' },
      { id: 'cli-flipped', integrity: 'corrupt' },
    ]);
  });

  it('without arguments runs what one scheduled run checks (KURA_VERIFY_GB_PER_HOUR=0: sizes only)', async () => {
    const bytes = await storeArchive(store, db.livestreams, 'cli-due');
    await putObject(store, objectKeys.video('cli-due'), bytes.subarray(0, 10));
    const result = await runKura(['verify'], { DATABASE_URL: db.url, LOG_LEVEL: 'warn', KURA_VERIFY_GB_PER_HOUR: '0' }, cwd);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^corrupt\s+cli-due\s+archives\/cli-due\/cli-due\.mp4 holds 10 bytes; the record says 65536$/m);
    expect(result.stdout).toContain('(0 sha256 checks, 0 bytes read)');
  });

  it('says why it cannot verify: an unknown id, a record kept outside, bad usage', async () => {
    const unknown = await verify('nothing-here');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No livestream has the id "nothing-here"');
    const archive = externalArchive();
    await db.livestreams.upsertMany([finishedRecord('cli-external', archive)]);
    const external = await verify('cli-external');
    expect(external.code).toBe(0);
    expect(external.stdout).toContain('cli-external is archived outside this instance');
    const usage = await verify('a', '--all');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('usage: kura verify [ID|--all]');
  });
});
