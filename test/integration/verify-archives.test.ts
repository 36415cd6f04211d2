import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createArchiveCheckRepo } from '../../src/adapters/db/archive-check-repo.js';
import { createFsStore } from '../../src/adapters/storage/fs-store.js';
import { createS3Store } from '../../src/adapters/storage/s3-store.js';
import type { Finding } from '../../src/core/archive/verify-archive.js';
import { objectKeys } from '../../src/core/archive/object-keys.js';
import type { ArchiveStore } from '../../src/core/archive/ports.js';
import { verifyAllArchives, verifyDueArchives, verifyOneArchive, type VerifyArchivesDeps } from '../../src/core/archive/verify-archives.js';
import { runVerifyArchives } from '../../src/jobs/definitions/verify-archives.js';
import { externalArchive, finishedRecord, flipOneByte, putObject, storeArchive } from '../support/archives.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startS3, type TestS3 } from '../support/s3.js';

// Real PostgreSQL, and each store as Kura runs it: a folder on disk, and an S3 server (s3rver).
let s3: TestS3;
beforeAll(async () => {
  s3 = await startS3();
});
afterAll(() => s3.stop());

let db: TestDatabase;
beforeEach(async () => {
  db = await createTestDatabase();
});
afterEach(() => db.drop());

const SIZES_ONLY = { everyDays: 30, bytesPerRun: 0 };
const integrityOf = async (id: string) => (await db.livestreams.findById(id))?.integrity ?? null;
const collect = () => {
  const findings: Finding[] = [];
  return { findings, report: (finding: Finding) => void findings.push(finding) };
};

const stores: Array<[string, () => Promise<ArchiveStore>]> = [
  ['fs', async () => createFsStore(await mkdtemp(path.join(os.tmpdir(), 'kura-verify-')))],
  ['s3', async () => createS3Store(s3.config)],
];

describe.each(stores)('verifying archives on %s', (_kind, makeStore) => {
  let store: ArchiveStore;
  let deps: VerifyArchivesDeps;
  beforeEach(async () => {
    store = await makeStore();
    deps = { store, checks: createArchiveCheckRepo(db.pool) };
  });
  // ids are unique per test: the S3 bucket is shared by the tests of this file
  const unique = (name: string) => `${name}-${Math.random().toString(36).slice(2, 8)}`;

  it('finds a fine archive ok (size and sha256) and notes when', async () => {
    const id = unique('fine');
    await storeArchive(store, db.livestreams, id);
    const before = Date.now();
    const { findings, report } = collect();
    const summary = await verifyAllArchives(deps, report);
    expect(findings).toEqual([expect.objectContaining({ id, result: 'ok', hashed: true, bytesRead: 64 * 1024, previous: null })]);
    expect(summary).toMatchObject({ checked: 1, hashed: 1, ok: 1, missing: 0, corrupt: 0, errors: 0 });
    const flag = await integrityOf(id);
    expect(flag?.state).toBe('ok');
    expect(flag?.verifiedAt.getTime()).toBeGreaterThanOrEqual(before - 1000);
  });

  it('flags a truncated archive corrupt by its size and a deleted one missing, without reading them', async () => {
    const truncated = unique('truncated');
    const deleted = unique('deleted');
    const bytes = await storeArchive(store, db.livestreams, truncated);
    await storeArchive(store, db.livestreams, deleted);
    await putObject(store, objectKeys.video(truncated), bytes.subarray(0, 1000));
    await store.delete(objectKeys.video(deleted));
    const { findings, report } = collect();
    const summary = await verifyDueArchives(deps, SIZES_ONLY, report);
    expect(summary).toMatchObject({ checked: 2, hashed: 0, bytesRead: 0, missing: 1, corrupt: 1 });
    expect(findings.find((f) => f.id === truncated)?.detail).toMatch(/holds 1000 bytes; the record says 65536/);
    expect((await integrityOf(truncated))?.state).toBe('corrupt');
    expect((await integrityOf(deleted))?.state).toBe('missing');
  });

  it('finds a byte flipped in place only when the sha256 is read, and ok again once restored', async () => {
    const id = unique('flipped');
    const bytes = await storeArchive(store, db.livestreams, id);
    await putObject(store, objectKeys.video(id), flipOneByte(bytes));
    await verifyDueArchives(deps, SIZES_ONLY, () => undefined);
    expect((await integrityOf(id))?.state).toBe('ok'); // same size: a size check cannot tell
    const hashing = collect();
    await verifyDueArchives(deps, { everyDays: 30, bytesPerRun: 10 ** 9 }, hashing.report);
    expect(hashing.findings).toEqual([
      expect.objectContaining({ id, result: 'corrupt', hashed: true, previous: 'ok', detail: expect.stringMatching(/sha256/) }),
    ]);
    expect((await integrityOf(id))?.state).toBe('corrupt');

    await putObject(store, objectKeys.video(id), bytes);
    const again = collect();
    await verifyOneArchive({ ...deps, livestreams: db.livestreams }, id, again.report);
    expect(again.findings).toEqual([expect.objectContaining({ id, result: 'ok', previous: 'corrupt' })]);
    expect((await integrityOf(id))?.state).toBe('ok');
  });

  it('hashes no more per run than the budget, the archives hashed longest ago first', async () => {
    const size = 64 * 1024;
    const ids = ['budget-a', 'budget-b', 'budget-c'].map(unique);
    for (const id of ids) await storeArchive(store, db.livestreams, id, size);
    const policy = { everyDays: 30, bytesPerRun: Math.floor(2.5 * size) }; // a third would not fit
    const first = collect();
    const summary = await verifyDueArchives(deps, policy, first.report);
    expect(summary, JSON.stringify(first.findings)).toMatchObject({ hashed: 2, bytesRead: 2 * size, ok: 3 }); // the third: size only
    const hashedFirst = first.findings.filter((f) => f.hashed).map((f) => f.id);
    const second = collect();
    await verifyDueArchives(deps, policy, second.report);
    const hashedNext = second.findings.filter((f) => f.hashed).map((f) => f.id);
    expect(hashedNext[0]).toBe(ids.find((id) => !hashedFirst.includes(id)));
    expect(second.findings.filter((f) => f.hashed)).toHaveLength(2);
  });

  it('reads an archive larger than the whole budget alone in a run, rather than never', async () => {
    const id = unique('large');
    await storeArchive(store, db.livestreams, id, 100_000);
    const summary = await verifyDueArchives(deps, { everyDays: 30, bytesPerRun: 1000 }, () => undefined);
    expect(summary).toMatchObject({ checked: 1, hashed: 1, bytesRead: 100_000, ok: 1 });
  });

  it('skips an imported record whose archive is kept outside (an external URL)', async () => {
    const id = unique('external');
    const archive = externalArchive();
    await db.livestreams.upsertMany([finishedRecord(id, archive)]);
    const { findings, report } = collect();
    expect(await verifyAllArchives(deps, report)).toMatchObject({ checked: 0 });
    expect(await verifyDueArchives(deps, SIZES_ONLY, report)).toMatchObject({ checked: 0 });
    expect(findings).toEqual([]);
    expect(await verifyOneArchive({ ...deps, livestreams: db.livestreams }, id, report)).toBe('external');
    expect(await integrityOf(id)).toBeNull();
  });
});

describe('a scheduled run', () => {
  it('logs each missing or corrupt archive and a summary, and leaves an archive it could not reach unflagged', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'kura-verify-'));
    const store = createFsStore(dir);
    await storeArchive(store, db.livestreams, 'logged-missing');
    await storeArchive(store, db.livestreams, 'logged-fine');
    await store.delete(objectKeys.video('logged-missing'));
    const lines: Array<{ level: string; fields: Record<string, unknown>; message: string }> = [];
    const log = {
      info: (fields: object, message: string) => void lines.push({ level: 'info', fields: fields as Record<string, unknown>, message }),
      warn: (fields: object, message: string) => void lines.push({ level: 'warn', fields: fields as Record<string, unknown>, message }),
    };
    const unreachable: ArchiveStore = { ...store, stat: async () => Promise.reject(new Error('connect ECONNREFUSED')) };
    const failed = await runVerifyArchives({ store: unreachable, checks: createArchiveCheckRepo(db.pool) }, SIZES_ONLY, log);
    expect(failed).toMatchObject({ checked: 2, errors: 2, missing: 0 });
    expect(await integrityOf('logged-missing')).toBeNull(); // an outage flags nothing

    lines.length = 0;
    await runVerifyArchives({ store, checks: createArchiveCheckRepo(db.pool) }, SIZES_ONLY, log);
    expect(lines).toEqual([
      {
        level: 'warn',
        fields: expect.objectContaining({ livestreamId: 'logged-missing', integrity: 'missing' }),
        message: expect.stringMatching(/^archive missing: the object archives\/logged-missing/),
      },
      { level: 'info', fields: { verify: expect.objectContaining({ checked: 2, ok: 1, missing: 1 }) }, message: 'archives verified' },
    ]);
  });
});
