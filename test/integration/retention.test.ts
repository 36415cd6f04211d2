import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminActionRepo } from '../../src/adapters/db/admin-action-repo.js';
import { createCaptureRepo } from '../../src/adapters/db/capture-repo.js';
import { createRetentionRepo } from '../../src/adapters/db/retention-repo.js';
import { createFsStore } from '../../src/adapters/storage/fs-store.js';
import { createS3Store } from '../../src/adapters/storage/s3-store.js';
import { objectKeys } from '../../src/core/archive/object-keys.js';
import type { ArchiveStore } from '../../src/core/archive/ports.js';
import type { ApplyRetentionDeps } from '../../src/core/retention/apply-retention.js';
import { NO_LIMITS } from '../../src/core/retention/retention-rules.js';
import { runRetention } from '../../src/jobs/definitions/apply-retention.js';
import { addUser, logIn, SAME_ORIGIN } from '../support/accounts.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { finishedRecord, putObject } from '../support/archives.js';
import { startS3, type TestS3 } from '../support/s3.js';

// Retention end to end below the job's clock: rules set through the API, the preview, pins, and a
// run through the takedown path, on the filesystem store and on S3 (s3rver), including a run that
// dies after an archive's files are gone and before its record is.
type Kind = 'fs' | 's3';

describe.each<Kind>(['fs', 's3'])('retention on %s storage', (kind) => {
  let s3: TestS3 | undefined;
  let kura: TestApp;
  let store: ArchiveStore;
  let admin: string;
  beforeAll(async () => {
    s3 = kind === 's3' ? await startS3() : undefined;
    kura = await startTestApp({}, {}, s3 === undefined ? {} : { store: createS3Store(s3.config) });
    store = s3 === undefined ? createFsStore(kura.archiveDir) : createS3Store(s3.config);
    await addUser(kura, 'root', { admin: true });
    admin = await logIn(kura, 'root');
  });
  afterAll(async () => {
    await kura?.close();
    await s3?.stop();
  });

  const api = (method: 'GET' | 'PUT' | 'DELETE' | 'PATCH' | 'POST', url: string, payload?: object) =>
    kura.app.inject({ method, url, headers: { ...SAME_ORIGIN, cookie: admin }, ...(payload ? { payload } : {}) });
  const deps = (): ApplyRetentionDeps => ({
    retention: createRetentionRepo(kura.db.pool),
    livestreams: kura.db.livestreams,
    captures: createCaptureRepo(kura.db.pool),
    store,
    adminActions: createAdminActionRepo(kura.db.pool),
  });
  const lines: string[] = [];
  const log = { info: (_: object, message: string) => void lines.push(message), warn: (_: object, message: string) => void lines.push(message) };

  /** A finished archive of `channel`, ended `daysAgo`, its video, log and thumbnail stored (`size` bytes of video). */
  async function archived(id: string, channel: string, daysAgo: number, size = 1000): Promise<void> {
    const keys = { videoKey: objectKeys.video(id), logKey: objectKeys.log(id), thumbnailKey: objectKeys.thumbnail(id) };
    await putObject(store, keys.videoKey, Buffer.alloc(size, 1));
    await putObject(store, keys.logKey, Buffer.from('log'));
    await putObject(store, keys.thumbnailKey, Buffer.from('jpg'));
    const endedAt = new Date(Date.now() - daysAgo * 86_400_000);
    await kura.db.livestreams.upsertMany([
      {
        ...finishedRecord(id, { ...keys, fileSizeBytes: size, lengthSeconds: 1, sha256: null, externalUrl: null }),
        channelId: channel,
        channelName: `Name ${channel}`,
        endedAt,
      },
    ]);
  }
  const stored = async (id: string) => (await store.stat(objectKeys.video(id))) !== null && (await store.stat(objectKeys.log(id))) !== null;
  const audit = async (id: string) =>
    (await kura.db.pool.query('select admin, reason from admin_actions where livestream_id = $1', [id])).rows as { admin: string; reason: string }[];
  const removedEvents = async (id: string) =>
    Number((await kura.db.pool.query(`select count(*) from events where type = 'livestream.removed' and livestream_id = $1`, [id])).rows[0].count);

  it('removes what a channel’s rules no longer keep, files then record, with the audit row, the removed event and a log line; a pin keeps one', async () => {
    await archived(`${kind}-new`, `${kind}-ch`, 1);
    await archived(`${kind}-mid`, `${kind}-ch`, 2);
    await archived(`${kind}-old`, `${kind}-ch`, 3);
    await archived(`${kind}-older`, `${kind}-ch`, 4);
    await kura.db.livestreams.upsertMany([
      { ...finishedRecord(`${kind}-live`), status: 'live', archive: null, channelId: `${kind}-ch`, channelName: `Name ${kind}-ch` },
    ]);

    const rules = await api('PATCH', `/api/channels/${kind}-ch/retention`, { keepLast: 1 });
    expect(rules.json()).toEqual({ keepLast: 1, maxAgeDays: null, maxGb: null });
    expect((await api('PUT', `/api/video/${kind}-old/pin`)).json()).toEqual({ id: `${kind}-old`, pinned: true });
    expect((await api('GET', `/api/video/${kind}-old`)).json()).toMatchObject({ pinned: true });
    // a pin made after a run planned the removal still wins: the removal is not even noted
    expect(await deps().retention.markForRemoval(`${kind}-old`, 'kura/retention', 'planned before the pin')).toBe(false);

    const preview = (await api('POST', '/api/retention/preview', { channel: `${kind}-ch` })).json();
    expect(preview).toMatchObject({ count: 2, bytes: 2000 });
    expect(preview.removals.map((r: { id: string }) => r.id)).toEqual([`${kind}-mid`, `${kind}-older`]);
    // a proposed rule, not saved: what it would remove
    expect((await api('POST', '/api/retention/preview', { channel: `${kind}-ch`, rules: { ...NO_LIMITS, maxAgeDays: 3 } })).json()).toMatchObject({
      count: 1,
      removals: [{ id: `${kind}-older`, reason: `retention: keep archives younger than 3 days of channel Name ${kind}-ch` }],
    });

    await runRetention({ deps: deps(), defaults: NO_LIMITS }, log, new Date());

    for (const id of [`${kind}-mid`, `${kind}-older`]) {
      expect(await stored(id)).toBe(false);
      expect(await kura.db.livestreams.findById(id)).toBeNull();
      expect(await audit(id)).toEqual([{ admin: 'kura/retention', reason: `retention: keep the last 1 of channel Name ${kind}-ch` }]);
      expect(await removedEvents(id)).toBe(1);
      expect(lines).toContain(`removed: ${id} "Stream ${id}", 1000 bytes: retention: keep the last 1 of channel Name ${kind}-ch`);
    }
    for (const id of [`${kind}-new`, `${kind}-old`]) expect(await stored(id)).toBe(true);
    expect(await kura.db.livestreams.findById(`${kind}-live`)).toMatchObject({ status: 'live' });
    expect((await api('POST', '/api/retention/preview', { channel: `${kind}-ch` })).json()).toEqual({ removals: [], count: 0, bytes: 0 });
    // unpinned, the rules apply to it again
    expect((await api('DELETE', `/api/video/${kind}-old/pin`)).json()).toEqual({ id: `${kind}-old`, pinned: false });
    expect((await api('POST', '/api/retention/preview', { channel: `${kind}-ch` })).json()).toMatchObject({ count: 1, removals: [{ id: `${kind}-old` }] });
    expect((await api('PUT', '/api/video/nothing-here/pin')).json()).toMatchObject({ status: 404, code: 'livestream_not_found' });
  });

  it('finishes at the next run a removal whose run died after the files were deleted, never serving it meanwhile', async () => {
    const channel = `${kind}-crash`;
    await archived(`${kind}-keep`, channel, 0.5);
    await archived(`${kind}-gone`, channel, 2);
    expect((await api('PATCH', `/api/channels/${channel}/retention`, { maxAgeDays: 1 })).statusCode).toBe(200);

    // the process dies when it comes to delete the record: the files are gone already
    const dying = deps();
    dying.adminActions = { ...dying.adminActions, takeDown: () => Promise.reject(new Error('the process died')) };
    await runRetention({ deps: dying, defaults: NO_LIMITS }, log, new Date());
    expect(await stored(`${kind}-gone`)).toBe(false);
    expect(await kura.db.livestreams.findById(`${kind}-gone`)).toMatchObject({ takedown: { admin: 'kura/retention' } });
    expect((await kura.app.inject({ url: `/api/video/${kind}-gone` })).statusCode).toBe(404);
    expect(await audit(`${kind}-gone`)).toEqual([]);

    await runRetention({ deps: deps(), defaults: NO_LIMITS }, log, new Date());
    expect(await kura.db.livestreams.findById(`${kind}-gone`)).toBeNull();
    expect(await audit(`${kind}-gone`)).toEqual([
      { admin: 'kura/retention', reason: `retention: keep archives younger than 1 days of channel Name ${channel}` },
    ]);
    expect(await removedEvents(`${kind}-gone`)).toBe(1);
    expect(await stored(`${kind}-keep`)).toBe(true);
    if (s3 !== undefined) expect(await s3.keys(`archives/${kind}-gone/`)).toEqual([]);
  });
});
