import { mkdtemp, readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFsStore } from '../../src/adapters/storage/fs-store.js';
import { finishedRecord } from '../support/archives.js';
import { runKura } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { keyframeAtOrBefore, type LongArchive, makeLongArchive, packetSizes, probe, storeAsVideo } from '../support/long-archive.js';

// The built `kura clip` on a real database and the fs store of its data directory.
let cwd: string;
let db: TestDatabase;
let archive: LongArchive;
const ID = 'clipCli0001';

beforeAll(async () => {
  cwd = await mkdtemp(path.join(os.tmpdir(), 'kura-clip-cli-'));
  [db, archive] = await Promise.all([createTestDatabase(), makeLongArchive(5)]);
  const facts = await storeAsVideo(createFsStore(path.join(cwd, 'data', 'archive')), ID, archive);
  await db.livestreams.upsertMany([{ ...finishedRecord(ID, facts), title: 'Announcement' }]);
}, 60_000);
afterAll(() => db.drop());

const clip = (...args: string[]) => runKura(['clip', ...args], { DATABASE_URL: db.url, LOG_LEVEL: 'warn' }, cwd);

describe('kura clip', () => {
  it('cuts a range into -o FILE, or a file named like the download, and says what it wrote', async () => {
    const keyframe = await keyframeAtOrBefore(archive.file, 61);
    const named = await clip(ID, '1:01', '1m31s', '-o', 'moment.mp4');
    expect(named.code, named.stderr).toBe(0);
    expect(named.stderr).toContain(`kura: wrote moment.mp4: 1:00 to 1:31 (${(91 - keyframe).toFixed(1)} s, from the keyframe at ${keyframe.toFixed(3)} s)`);
    const file = path.join(cwd, 'moment.mp4');
    expect(Math.abs((await probe(file)).seconds - (91 - keyframe))).toBeLessThan(0.5);
    expect(await packetSizes(file, 'v:0', 10)).toEqual(await packetSizes(archive.file, 'v:0', 10, keyframe));

    const plain = await clip(ID, '0', '20');
    expect(plain.code, plain.stderr).toBe(0);
    expect(await readdir(cwd)).toContain(`Announcement (0s-20s) [${ID}].mp4`);
  });

  it('says why it cannot: bad usage, a bad time, an unknown record', async () => {
    const usage = await clip(ID, '10');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('usage: kura clip ID START END [-o FILE]');
    const bad = await clip(ID, 'soon', '20');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('start: "soon" is not a time');
    const unknown = await clip('noSuchClip1', '0', '10');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No livestream has the id "noSuchClip1"');
  });
});
