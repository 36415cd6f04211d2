import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../src/core/errors.js';
import { importLivestreams } from '../../src/core/records/import-livestreams.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { buildRecord, buildRecords } from '../support/factories.js';

let db: TestDatabase;
beforeEach(async () => {
  db = await createTestDatabase();
});
afterEach(() => db.drop());

const count = async () => (await db.pool.query<{ n: number }>('select count(*)::int as n from livestreams')).rows[0]?.n;
const importError = async (file: unknown, baseUrl?: string): Promise<string> => {
  const error = await importLivestreams(db, file, undefined, baseUrl).catch((e: unknown) => e);
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
    expect(detail).toContain(`record 4 (id "${file[4]!.id}"): fileSizeBytes`);
    expect(detail).toContain(`record 7 (id "${file[7]!.id}"): scheduledStart`);
    expect(detail).toContain(`record 8 (id "${file[8]!.id}"): title is required`);
    expect(detail).not.toContain('record 0');
    expect(await count()).toBe(3);
  });

  it.each([
    [{ not: 'an array' }, 'JSON array'],
    [[42], 'record 0: must be a JSON object'],
    [[buildRecord({ id: 'has spaces' })], 'record 0 (id "has spaces"): id'],
    [[buildRecord({ submitters: ['two words'] })], 'record 0 (id "rec00000000"): submitters.0'],
    [[buildRecord({ submitters: ['Upper/case'] })], 'record 0 (id "rec00000000"): submitters.0'],
    [[buildRecord({ status: 'finished', finished: false })], 'contradicts'],
    [[buildRecord({ id: 'dup' }, 1), buildRecord({ id: 'dup' }, 2)], 'record 1 (id "dup"): the id already appears at record 0'],
    [
      [buildRecord({}, 1), buildRecord({ title: 'Karaoke\u0000night' }, 2)],
      'record 1 (id "rec00000002"): title holds a character the database cannot store (U+0000 at position 7)',
    ],
    [
      [buildRecord({ channelName: 'half \ud83c pair' })],
      'record 0 (id "rec00000000"): channelName holds a character the database cannot store (U+D83C at position 5)',
    ],
    [
      [buildRecord({ submitters: ['discord/1', 'discord/2\u0000'] })],
      'record 0 (id "rec00000000"): submitters.1 holds a character the database cannot store (U+0000 at position 9)',
    ],
  ])('refuses %j with a reason', async (file, reason) => {
    expect(await importError(file)).toContain(reason);
    expect(await count()).toBe(0);
  });

  it.each([
    ['scheduledStart', { scheduledStart: '0000-01-01T00:00:00Z' }, 'scheduledStart 0000-01-01T00:00:00Z is outside the dates Kura can store'],
    ['startedAt', { startedAt: '0001-01-01T00:00:00+01:00' }, 'startedAt 0001-01-01T00:00:00+01:00 is outside the dates Kura can store'],
    ['endedAt', { endedAt: '2016-12-31T23:59:60Z' }, 'endedAt 2016-12-31T23:59:60Z is not an instant Kura can store'],
    ['fileSizeBytes', { fileSizeBytes: 1e19 }, 'fileSizeBytes 10000000000000000000 is more than Kura can store (at most 9007199254740991)'],
    ['fileSizeBytes', { fileSizeBytes: 2 ** 53 }, 'fileSizeBytes 9007199254740992 is more than Kura can store'],
    [
      'sourceUrl',
      {
        platform: 'hls',
        sourceUrl: `https://cdn.example/${Array.from({ length: 1000 }, (_, i) => String.fromCodePoint(0x4e00 + ((i * 7919) % 20000))).join('')}.m3u8`,
      },
      'sourceUrl is 3025 bytes long in UTF-8; Kura stores at most 2048',
    ],
  ])('refuses a %s PostgreSQL cannot store, naming the record and the field, and writes nothing', async (_field, override, reason) => {
    // the first and last dates and the largest size Kura takes stand beside it, and are stored as given
    const first = buildRecord({ id: 'first', scheduledStart: '0001-01-01T00:00:00Z', fileSizeBytes: Number.MAX_SAFE_INTEGER }, 1);
    const last = buildRecord({ id: 'last', scheduledStart: '9999-12-31T23:59:59.999Z', fileSizeBytes: 0 }, 2);
    const detail = await importError([first, last, buildRecord({ id: 'abc', ...override } as Partial<ReturnType<typeof buildRecord>>, 3)]);
    expect(detail).toContain(`record 2 (id "abc"): ${reason}`);
    expect(detail).not.toMatch(/record [01] /);
    expect(await count()).toBe(0);
    await importLivestreams(db, [first, last]);
    expect(await db.livestreams.findById('first')).toMatchObject({
      scheduledStart: new Date('0001-01-01T00:00:00Z'),
      archive: { fileSizeBytes: Number.MAX_SAFE_INTEGER },
    });
    expect((await db.livestreams.findById('last'))?.scheduledStart).toEqual(new Date('9999-12-31T23:59:59.999Z'));
  });

  it('refuses sizes that add up past what Kura can count, naming the record that goes past, and writes nothing', async () => {
    const half = Math.ceil(Number.MAX_SAFE_INTEGER / 2);
    const file = [buildRecord({ fileSizeBytes: half }, 1), buildRecord({}, 2), buildRecord({ id: 'abc', fileSizeBytes: half }, 3)];
    expect(await importError(file)).toContain(`record 2 (id "abc"): fileSizeBytes brings the file's total size past 9007199254740991 bytes`);
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
      'record 0 (id "kQp3xF0aZ1c"): downloadUrl "/api/download/kQp3xF0aZ1c/video" is relative: give the address of the instance it came from (kura import --base-url URL)',
    );
    expect(detail).toMatch(/record 6 \(id "[^"]+"\): downloadUrl/);
    expect(detail).not.toContain('record 7');
    expect(await count()).toBe(0);
  });

  it('refuses a base URL that is not http(s), and a protocol-relative download URL', async () => {
    const error = await importLivestreams(db, originalExport, undefined, 'ftp://pomu.example').catch((e: unknown) => e);
    expect((error as AppError).detail).toContain('the base URL "ftp://pomu.example" is not an http(s) URL');
    expect(await importError([{ ...originalExport[0], downloadUrl: '//elsewhere.example/x.mp4' }])).toContain('record 0 (id "kQp3xF0aZ1c"): downloadUrl');
  });

  it("keeps a relative download URL to the base URL's origin (one that resolves elsewhere is refused, and nothing is written), an absolute one as it is", async () => {
    const escaping = [
      ['/\\evil.example/x', 'https://evil.example'],
      ['/\\/evil.example/x', 'https://evil.example'],
      ['/\\pomu.example:8443/x', 'https://pomu.example:8443'],
    ];
    for (const [downloadUrl, elsewhere] of escaping) {
      expect(await importError([originalExport[1], { ...originalExport[0], downloadUrl }], BASE)).toContain(
        `record 1 (id "kQp3xF0aZ1c"): downloadUrl "${downloadUrl}" resolves to ${elsewhere}, outside the base URL's origin https://pomu.example`,
      );
    }
    expect(await count()).toBe(0);
    await importLivestreams(db, [{ ...originalExport[0], downloadUrl: '/\\pomu.example/api/download/kQp3xF0aZ1c/video' }], undefined, BASE);
    expect((await db.livestreams.findById('kQp3xF0aZ1c'))?.archive?.externalUrl).toBe('https://pomu.example/api/download/kQp3xF0aZ1c/video');
    // an absolute URL is kept as the export names it, whatever its origin
    await importLivestreams(db, [{ ...originalExport[0], downloadUrl: 'https://files.elsewhere.example/k.mp4' }], undefined, BASE);
    expect((await db.livestreams.findById('kQp3xF0aZ1c'))?.archive?.externalUrl).toBe('https://files.elsewhere.example/k.mp4');
  });
});
