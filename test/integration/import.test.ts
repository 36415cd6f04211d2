import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../src/core/errors.js';
import { importLivestreams } from '../../src/core/livestream/import-livestreams.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { buildRecord, buildRecords } from '../support/factories.js';

let db: TestDatabase;
beforeEach(async () => {
  db = await createTestDatabase();
});
afterEach(() => db.drop());

const count = async () => (await db.pool.query<{ n: number }>('select count(*)::int as n from livestreams')).rows[0]?.n;
const importError = async (file: unknown): Promise<string> => {
  const error = await importLivestreams(db, file).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe('invalid_import');
  return (error as AppError).detail;
};

describe('importing records in the /api/history shape', () => {
  it('imports a good file and serves it back unchanged', async () => {
    const records = buildRecords(50, { unfinishedEvery: 5 });
    expect(await importLivestreams(db, records)).toEqual({ inserted: 50, updated: 0 });
    const stored = await db.livestreams.findById(records[7]!.id);
    expect(stored).toMatchObject({
      id: records[7]!.id,
      title: records[7]!.title,
      status: 'finished',
      submitters: records[7]!.submitters,
      scheduledStart: new Date(records[7]!.scheduledStart),
      archive: { fileSizeBytes: records[7]!.fileSizeBytes, lengthSeconds: records[7]!.length, externalUrl: records[7]!.downloadUrl },
    });
    expect((await db.livestreams.findById(records[5]!.id))?.status).toBe('upcoming');
  });

  it('accepts sizes and lengths served as strings by the original interface, stored as numbers', async () => {
    await importLivestreams(db, [buildRecord({ id: 'str', fileSizeBytes: '123456789012' as unknown as number, length: '3600.4' as unknown as number })]);
    expect((await db.livestreams.findById('str'))?.archive).toMatchObject({ fileSizeBytes: 123456789012, lengthSeconds: 3600 });
  });

  it('refuses a bad record by index and field and writes nothing', async () => {
    await importLivestreams(db, buildRecords(3));
    const file = buildRecords(10, { offset: 100 });
    (file[4] as Record<string, unknown>).fileSizeBytes = -1;
    (file[7] as Record<string, unknown>).scheduledStart = 'yesterday';
    delete (file[8] as Record<string, unknown>).title;
    const detail = await importError(file);
    expect(detail).toContain('record 4: fileSizeBytes');
    expect(detail).toContain('record 7: scheduledStart');
    expect(detail).toContain('record 8: title is required');
    expect(detail).not.toContain('record 0');
    expect(await count()).toBe(3);
  });

  it.each([
    [{ not: 'an array' }, 'JSON array'],
    [[42], 'record 0: must be a JSON object'],
    [[buildRecord({ id: 'has spaces' })], 'record 0: id'],
    [[buildRecord({ submitters: ['two words'] })], 'record 0: submitters.0'],
    [[buildRecord({ submitters: ['Upper/case'] })], 'record 0: submitters.0'],
    [[buildRecord({ status: 'finished', finished: false })], 'contradicts'],
    [[buildRecord({ id: 'dup' }, 1), buildRecord({ id: 'dup' }, 2)], 'record 1: id "dup" already appears at record 0'],
    [
      [buildRecord({}, 1), buildRecord({ title: 'Karaoke\u0000night' }, 2)],
      'record 1: title holds a character the database cannot store (U+0000 at position 7)',
    ],
    [[buildRecord({ channelName: 'half \ud83c pair' })], 'record 0: channelName holds a character the database cannot store (U+D83C at position 5)'],
    [
      [buildRecord({ submitters: ['discord/1', 'discord/2\u0000'] })],
      'record 0: submitters.1 holds a character the database cannot store (U+0000 at position 9)',
    ],
  ])('refuses %j with a reason', async (file, reason) => {
    expect(await importError(file)).toContain(reason);
    expect(await count()).toBe(0);
  });

  it('updates re-imported ids and keeps their submitters, adding new ones after them', async () => {
    await importLivestreams(db, [buildRecord({ id: 're', title: 'Old', submitters: ['discord/1', 'discord/2'] })]);
    const result = await importLivestreams(db, [
      buildRecord({ id: 're', title: 'New', submitters: ['discord/3', 'discord/1'] }),
      buildRecord({ id: 'brand-new' }),
    ]);
    expect(result).toEqual({ inserted: 1, updated: 1 });
    const stored = await db.livestreams.findById('re');
    expect(stored?.title).toBe('New');
    expect(stored?.submitters).toEqual(['discord/1', 'discord/2', 'discord/3']);
    expect(await count()).toBe(2);
  });

  it('imports 20k records in one go', async () => {
    const result = await importLivestreams(db, buildRecords(20_000, { unfinishedEvery: 9 }));
    expect(result.inserted).toBe(20_000);
    expect((await db.livestreams.totals()).all).toBe(20_000);
  });
});

describe("importing the original interface's own export (test/fixtures/original/history-export.json)", () => {
  const originalExport = JSON.parse(readFileSync(new URL('../fixtures/original/history-export.json', import.meta.url), 'utf8')) as Array<
    Record<string, unknown>
  >;
  const BASE = 'https://pomu.example/';

  it('takes it as it is with a base URL: relative downloads resolved, bare submitters kept as legacy/…, "0" of unfinished records ignored', async () => {
    expect(await importLivestreams(db, originalExport, undefined, BASE)).toEqual({ inserted: 10, updated: 0 });
    expect(await db.livestreams.findById('Zx81mBq2rT4')).toMatchObject({
      status: 'finished',
      submitters: ['legacy/186447523415293952', 'legacy/pomu.app'],
      archive: { fileSizeBytes: 5032217811, lengthSeconds: 14411, externalUrl: 'https://pomu.example/api/download/Zx81mBq2rT4/video' },
    });
    expect(await db.livestreams.findById('Hc3jN8qV1tR')).toMatchObject({ status: 'upcoming', archive: null, submitters: ['legacy/186447523415293952'] });
  });

  it('refuses relative download URLs without a base URL, naming each finished record and what to give, and writes nothing', async () => {
    const detail = await importError(originalExport);
    expect(detail).toContain(
      'record 0: downloadUrl "/api/download/kQp3xF0aZ1c/video" is relative: give the address of the instance it came from (kura import --base-url URL)',
    );
    expect(detail).toContain('record 6: downloadUrl');
    expect(detail).not.toContain('record 7');
    expect(await count()).toBe(0);
  });

  it('refuses a base URL that is not http(s), and a protocol-relative download URL', async () => {
    const error = await importLivestreams(db, originalExport, undefined, 'ftp://pomu.example').catch((e: unknown) => e);
    expect((error as AppError).detail).toContain('the base URL "ftp://pomu.example" is not an http(s) URL');
    expect(await importError([{ ...originalExport[0], downloadUrl: '//elsewhere.example/x.mp4' }])).toContain('record 0: downloadUrl');
  });
});
