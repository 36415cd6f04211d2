import { createCaptureRepo } from '../../src/adapters/db/capture-repo.js';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LivestreamInput } from '../../src/core/records/livestream.js';
import type { LivestreamStatus } from '../../src/core/vocabulary.js';
import { createChatRepo } from '../../src/adapters/db/chat-repo.js';
import { objectKeys } from '../../src/core/archive/object-keys.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { addUser, logIn, SAME_ORIGIN } from '../support/accounts.js';
import { queuedJobs } from '../support/jobs.js';

let kura: TestApp;
let admin: string;
let user: string;
beforeAll(async () => {
  kura = await startTestApp({}, { env: { KURA_ADMINS: 'local/boss' } });
  await addUser(kura, 'root', { admin: true });
  await addUser(kura, 'boss');
  await addUser(kura, 'viewer');
  admin = await logIn(kura, 'root');
  user = await logIn(kura, 'viewer');
});
afterAll(() => kura.close());

/** A record in `status`; a finished one has its three files in the fs store. */
async function makeRecord(id: string, status: LivestreamStatus): Promise<void> {
  const record: LivestreamInput = {
    id,
    platform: 'hls',
    sourceUrl: `https://cdn.example/${id}/index.m3u8`,
    status,
    failureReason: status === 'failed' ? 'never went live' : null,
    title: `Stream ${id}`,
    channelName: 'Channel',
    channelId: 'cdn.example',
    thumbnailUrl: null,
    scheduledStart: new Date('2026-01-01T00:00:00Z'),
    startedAt: null,
    endedAt: null,
    archive: null,
    submitters: ['local/viewer', 'discord/42'],
    requestedQuality: null,
  };
  if (status === 'finished') {
    for (const key of [objectKeys.video(id), objectKeys.log(id), objectKeys.thumbnail(id)]) {
      await mkdir(path.dirname(path.join(kura.archiveDir, key)), { recursive: true });
      await writeFile(path.join(kura.archiveDir, key), `bytes of ${key}`);
    }
    record.archive = {
      fileSizeBytes: 10,
      lengthSeconds: 1,
      videoKey: objectKeys.video(id),
      logKey: objectKeys.log(id),
      thumbnailKey: objectKeys.thumbnail(id),
      sha256: 'a'.repeat(64),
      externalUrl: null,
    };
  }
  await kura.db.livestreams.upsertMany([record]);
}

const act = (method: 'DELETE' | 'POST', url: string, cookie: string | undefined, payload?: object) =>
  kura.app.inject({ method, url, headers: { ...SAME_ORIGIN, ...(cookie ? { cookie } : {}) }, ...(payload ? { payload } : {}) });

describe('takedown', () => {
  it('removes the live chat with the archive: its file and its messages', async () => {
    await makeRecord('takedown5', 'finished');
    const chats = createChatRepo(kura.db.pool);
    expect(await chats.claim('takedown5', 'worker-1', 30)).toBe(true);
    const message = { id: 'm1', sentAt: new Date(), author: { name: 'A', channelId: 'UCa', badges: [] }, text: 'hi', emojis: [], paid: null };
    await chats.append('takedown5', 'worker-1', [message]);
    await chats.finish('takedown5', 'ended');
    await writeFile(path.join(kura.archiveDir, objectKeys.chat('takedown5')), 'gzip bytes');
    expect(await chats.count('takedown5')).toBe(1);
    expect((await act('DELETE', '/api/video/takedown5', admin, { reason: 'copyright claim' })).statusCode).toBe(204);
    expect(await readdir(path.join(kura.archiveDir, 'archives')).catch(() => [])).not.toContain('takedown5');
    expect(await chats.count('takedown5')).toBe(0);
  });

  it('removes the stored files and the record, and keeps who, why and what in the audit table', async () => {
    await makeRecord('takedown1', 'finished');
    expect(await readdir(path.join(kura.archiveDir, 'archives', 'takedown1'))).toHaveLength(3);
    const response = await act('DELETE', '/api/video/takedown1', admin, { reason: 'copyright claim' });
    expect(response.statusCode, response.body).toBe(204);
    // the files, and the folder they leave empty, are gone
    expect(await readdir(path.join(kura.archiveDir, 'archives')).catch(() => [])).not.toContain('takedown1');
    expect((await kura.app.inject({ url: '/api/video/takedown1' })).statusCode).toBe(404);
    expect(await kura.db.livestreams.findById('takedown1')).toBeNull();
    const { rows } = await kura.db.pool.query(`select action, admin, reason, record from admin_actions where livestream_id = 'takedown1'`);
    expect(rows).toEqual([
      {
        action: 'takedown',
        admin: 'local/root',
        reason: 'copyright claim',
        record: expect.objectContaining({ title: 'Stream takedown1', submitters: ['local/viewer', 'discord/42'] }),
      },
    ]);
  });

  it('is for admins only: 401 without a session, 403 for a user, and nothing is removed', async () => {
    await makeRecord('takedown2', 'finished');
    expect((await act('DELETE', '/api/video/takedown2', undefined, { reason: 'x' })).statusCode).toBe(401);
    const forbidden = await act('DELETE', '/api/video/takedown2', user, { reason: 'x' });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json()).toMatchObject({ code: 'admin_only' });
    expect(await readdir(path.join(kura.archiveDir, 'archives', 'takedown2'))).toHaveLength(3);
    expect(await kura.db.livestreams.findById('takedown2')).not.toBeNull();
  });

  it('needs a reason (400) and answers 404 for an unknown record', async () => {
    await makeRecord('takedown4', 'finished');
    const noReason = await act('DELETE', '/api/video/takedown4', admin, {});
    expect(noReason.statusCode).toBe(400);
    expect(await kura.db.livestreams.findById('takedown4')).not.toBeNull();
    const unknown = await act('DELETE', '/api/video/nothing-here', admin, { reason: 'x' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ code: 'livestream_not_found' });
  });

  it('of a record being recorded answers 202, asks its capture to stop and hides it; asked again, 202 again', async () => {
    await makeRecord('recording1', 'live');
    const captures = createCaptureRepo(kura.db.pool);
    await captures.claim('recording1', 'worker-1', 60);
    const first = await act('DELETE', '/api/video/recording1', admin, { reason: 'legal notice' });
    expect(first.statusCode, first.body).toBe(202);
    const pending = first.json();
    expect(pending).toMatchObject({ id: 'recording1', takedown: 'pending', admin: 'local/root', reason: 'legal notice' });
    expect((await captures.get('recording1'))?.stopRequested).toBe('local/root (takedown: legal notice)');
    for (const url of ['/api/video/recording1', '/api/video/recording1/live.m3u8', '/api/download/recording1/video']) {
      expect((await kura.app.inject({ url })).statusCode, url).toBe(404);
    }
    const again = await act('DELETE', '/api/video/recording1', admin, { reason: 'asked twice' });
    expect(again.statusCode).toBe(202);
    expect(again.json()).toEqual(pending); // the first request's admin, reason and time stand
    // completed by a worker once the capture has ended (test/integration/takedown-s3.test.ts)
    expect(await kura.db.livestreams.findById('recording1')).toMatchObject({ status: 'live', takedown: { admin: 'local/root' } });
  });

  it('counts admins of KURA_ADMINS too', async () => {
    await makeRecord('takedown3', 'upcoming');
    expect((await act('DELETE', '/api/video/takedown3', await logIn(kura, 'boss'), { reason: 'spam' })).statusCode).toBe(204);
  });
});

describe('cancel and retry', () => {
  it('cancel stops waiting for an upcoming stream: failed, with the reason kept', async () => {
    await makeRecord('cancel1', 'upcoming');
    const response = await act('POST', '/api/video/cancel1/cancel', admin, { reason: 'wrong stream' });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ id: 'cancel1', status: 'failed' });
    expect((await kura.db.livestreams.findById('cancel1'))?.failureReason).toBe('Cancelled by an admin: wrong stream');
    const { rows } = await kura.db.pool.query(`select action, admin, reason from admin_actions where livestream_id = 'cancel1'`);
    expect(rows).toEqual([{ action: 'cancel', admin: 'local/root', reason: 'wrong stream' }]);
    expect((await act('POST', '/api/video/cancel1/cancel', admin, { reason: 'again' })).json()).toMatchObject({
      status: 409,
      code: 'livestream_not_cancellable',
    });
    expect((await act('POST', '/api/video/cancel1/cancel', user, { reason: 'x' })).statusCode).toBe(403);
  });

  it('retry watches a failed stream again', async () => {
    await makeRecord('retry1', 'failed');
    const response = await act('POST', '/api/video/retry1/retry', admin, {});
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ id: 'retry1', status: 'upcoming' });
    expect(await queuedJobs(kura.db, 'watch-stream', 'retry1')).toEqual([
      expect.objectContaining({ data: { livestreamId: 'retry1' }, state: 'created', singletonKey: 'retry1' }),
    ]);
    expect((await act('POST', '/api/video/retry1/retry', admin, {})).json()).toMatchObject({ status: 409, code: 'livestream_not_retryable' });
    const { rows } = await kura.db.pool.query(`select action, reason from admin_actions where livestream_id = 'retry1' order by id`);
    expect(rows).toEqual([{ action: 'retry', reason: 'retried' }]);
  });

  it('retry of a failed stream whose capture kept parts makes them into a video again instead of watching', async () => {
    await makeRecord('retry2', 'upcoming');
    const captures = createCaptureRepo(kura.db.pool);
    await captures.claim('retry2', 'w1', 30);
    await kura.db.livestreams.transition('retry2', { type: 'went_live', at: new Date() });
    await captures.recordSegment('retry2', { sequence: 0, part: 1, endOffset: 1880, durationSeconds: 1 }, []);
    await captures.end('retry2', 'endlist');
    await kura.db.livestreams.transition('retry2', { type: 'gave_up', reason: 'The recording could not be made into a video after 21 attempts: disk full' });
    const response = await act('POST', '/api/video/retry2/retry', admin, { reason: 'disk freed' });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ id: 'retry2', status: 'live' });
    expect(await queuedJobs(kura.db, 'finalize-archive', 'retry2')).toEqual([expect.objectContaining({ data: { livestreamId: 'retry2' }, state: 'created' })]);
    expect(await queuedJobs(kura.db, 'watch-stream', 'retry2')).toEqual([]);
    expect(await captures.readLog('retry2')).toContain('local/root retried: the captured parts are made into a video again');
  });
});

describe('rename', () => {
  const rename = (cookie: string | undefined, payload: object) =>
    kura.app.inject({ method: 'PATCH', url: '/api/video/named1', headers: { ...SAME_ORIGIN, ...(cookie ? { cookie } : {}) }, payload });

  it('gives a record the title and channel name an admin chose, trimmed; the channel id stays', async () => {
    await makeRecord('named1', 'finished');
    const response = await rename(admin, { title: '  Friday karaoke ', channelName: 'Karaoke Night' });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ id: 'named1', title: 'Friday karaoke', channelName: 'Karaoke Night', channelId: 'cdn.example' });
    expect((await rename(admin, { title: 'Only the title' })).json()).toMatchObject({ title: 'Only the title', channelName: 'Karaoke Night' });
  });

  it('is for admins only, checked before the body: 401, 403; then 400 for nothing to change or a blank name, 404 for an unknown record', async () => {
    await makeRecord('named1', 'finished');
    expect((await rename(undefined, {})).statusCode).toBe(401);
    expect((await rename(user, { title: 'mine now' })).statusCode).toBe(403);
    for (const body of [{}, { title: '   ' }, { title: 'x', id: 'other' }, { channelName: '' }]) {
      const refused = await rename(admin, body);
      expect(refused.statusCode, JSON.stringify(body)).toBe(400);
      expect(refused.json().code).toBe('invalid_body');
    }
    const unknown = await kura.app.inject({ method: 'PATCH', url: '/api/video/nobody', headers: { ...SAME_ORIGIN, cookie: admin }, payload: { title: 'x' } });
    expect(unknown.json()).toMatchObject({ status: 404, code: 'livestream_not_found' });
    expect((await kura.db.livestreams.findById('named1'))?.title).toBe('Stream named1');
  });

  const renameRecord = (id: string, payload: object) =>
    kura.app.inject({ method: 'PATCH', url: `/api/video/${id}`, headers: { ...SAME_ORIGIN, cookie: admin }, payload });

  it('refuses a title or channel name that is not a JSON string (no type coercion), naming the field', async () => {
    await makeRecord('named2', 'finished');
    const bodies: Array<[object, string]> = [
      [{ title: ['a'] }, 'title'],
      [{ title: 5 }, 'title'],
      [{ title: null }, 'title'],
      [{ title: 'fine', channelName: true }, 'channelName'],
      [{ channelName: { name: 'a' } }, 'channelName'],
    ];
    for (const [body, field] of bodies) {
      const refused = await renameRecord('named2', body);
      expect(refused.statusCode, JSON.stringify(body)).toBe(400);
      expect(refused.json()).toMatchObject({ code: 'invalid_body', detail: expect.stringContaining(`Field "${field}" must be a JSON string`) });
    }
    expect(await kura.db.livestreams.findById('named2')).toMatchObject({ title: 'Stream named2', channelName: 'Channel' });
  });

  it('keeps names as submissions do: controls become a space, bidi overrides and isolates and other invisible characters go; nothing visible is refused', async () => {
    await makeRecord('named3', 'finished');
    const renamed = await renameRecord('named3', {
      title: ' Friday\u202e ekoarak\u2066 night\u0007\r\nlive\u200b\u2069 ',
      channelName: '\u2067Karaoke\u2069\tNight\u0085',
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json()).toMatchObject({ title: 'Friday ekoarak night live', channelName: 'Karaoke Night' });
    expect(await kura.db.livestreams.findById('named3')).toMatchObject({ title: 'Friday ekoarak night live', channelName: 'Karaoke Night' });
    // emoji sequences keep their joiners
    expect((await renameRecord('named3', { title: 'Family 👨\u200d👩\u200d👧' })).json().title).toBe('Family 👨\u200d👩\u200d👧');
    for (const body of [{ title: '\u202e\u200b\u2066' }, { channelName: ' \u2069\u0009\u009b ' }]) {
      const refused = await renameRecord('named3', body);
      expect(refused.statusCode, JSON.stringify(body)).toBe(400);
      expect(refused.json()).toMatchObject({ code: 'invalid_body', detail: expect.stringMatching(/^Field "(title|channelName)" must match pattern/) });
    }
    expect((await kura.db.livestreams.findById('named3'))?.channelName).toBe('Karaoke Night');
  });
});
