import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFsStore } from '../../src/adapters/storage/fs-store.js';
import { objectKeys } from '../../src/core/archive/object-keys.js';
import type { ArchiveStore } from '../../src/core/archive/ports.js';
import { storeArchive } from '../support/archives.js';
import { runKura } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

// The built `kura retention` on a real database and the fs store of its data directory, under the
// instance default of KURA_RETENTION_KEEP_LAST.
let cwd: string;
let db: TestDatabase;
let store: ArchiveStore;
beforeEach(async () => {
  cwd = await mkdtemp(path.join(os.tmpdir(), 'kura-retention-cli-'));
  db = await createTestDatabase();
  store = createFsStore(path.join(cwd, 'data', 'archive'));
});
afterEach(() => db.drop());

const retention = (...args: string[]) => runKura(['retention', ...args], { DATABASE_URL: db.url, LOG_LEVEL: 'warn', KURA_RETENTION_KEEP_LAST: '1' }, cwd);

describe('kura retention', () => {
  it('prints what a run would remove with --dry-run, removes it without, and then has nothing left to remove', async () => {
    await storeArchive(store, db.livestreams, 'cli-old', 1000);
    await storeArchive(store, db.livestreams, 'cli-new', 1000);

    const dry = await retention('--dry-run');
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toBe(
      'id\ttitle\tsize\treason\ncli-old\tStream cli-old\t1000\tretention: keep the last 1 of the instance default\nwould free 1000 bytes (1 archive)\n',
    );
    expect(await store.stat(objectKeys.video('cli-old'))).toEqual({ bytes: 1000 });

    const run = await retention('--json');
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([
      { id: 'cli-old', title: 'Stream cli-old', size: 1000, reason: 'retention: keep the last 1 of the instance default' },
    ]);
    expect(await store.stat(objectKeys.video('cli-old'))).toBeNull();
    expect(await db.livestreams.findById('cli-old')).toBeNull();
    expect(await store.stat(objectKeys.video('cli-new'))).toEqual({ bytes: 1000 });

    const again = await retention();
    expect(again.stdout).toBe('none\nfreed 0 bytes (0 archives)\n');
  });
});
