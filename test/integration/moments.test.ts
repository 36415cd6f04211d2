import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookRepo } from '../../src/adapters/db/webhook-repo.js';
import { addWebhook } from '../../src/core/notifications/add-webhook.js';
import { addUser, logIn, SAME_ORIGIN } from '../support/accounts.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { finishedRecord } from '../support/archives.js';
import { startReceiver, startWorker } from '../support/webhooks.js';

// Moments marked in records, on the real app and database; `moment.added` reaches a webhook signed.
let kura: TestApp;
let alice: string;
let bob: string;
let admin: string;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let worker: Awaited<ReturnType<typeof startWorker>>;
const ARCHIVED = 'momentsArc1';

beforeAll(async () => {
  kura = await startTestApp();
  [receiver, worker] = await Promise.all([startReceiver(), startWorker(kura.db)]);
  for (const [name, options] of [
    ['alice', {}],
    ['bob', {}],
    ['root', { admin: true }],
  ] as const)
    await addUser(kura, name, options);
  [alice, bob, admin] = await Promise.all([logIn(kura, 'alice'), logIn(kura, 'bob'), logIn(kura, 'root')]);
  const facts = {
    fileSizeBytes: 1,
    lengthSeconds: 7200,
    videoKey: 'archives/x.mp4',
    logKey: null,
    thumbnailKey: null,
    sha256: 'a'.repeat(64),
    externalUrl: null,
  };
  await kura.db.livestreams.upsertMany([
    { ...finishedRecord(ARCHIVED, facts), title: 'Karaoke', channelId: 'UCkaraoke' },
    { ...finishedRecord('upcoming001'), status: 'upcoming', archive: null },
  ]);
});
afterAll(async () => {
  await worker.stop();
  await receiver.close();
  await kura.close();
});

const add = (cookie: string | null, id: string, body: unknown) =>
  kura.app.inject({
    method: 'POST',
    url: `/api/video/${id}/moments`,
    headers: { ...SAME_ORIGIN, ...(cookie === null ? {} : { cookie }) },
    payload: body as object,
  });
const change = (cookie: string, method: 'PATCH' | 'DELETE', momentId: string, body?: unknown) =>
  kura.app.inject({ method, url: `/api/moments/${momentId}`, headers: { ...SAME_ORIGIN, cookie }, ...(body === undefined ? {} : { payload: body as object }) });

describe('moments', () => {
  it('a logged-in user marks moments; everyone reads them by time, in the record and as chapter lines; a webhook is sent moment.added, signed', async () => {
    const { secret } = await addWebhook(
      { webhooks: createWebhookRepo(kura.db.pool), refuseUrl: () => null, checkAddresses: async () => null },
      { url: receiver.url, events: ['moment.added'], channelId: null, createdBy: 'local/root' },
    );
    receiver.useSecret(secret);
    const song = await add(alice, ARCHIVED, { at: 3723.25, text: '  Song: 残響散歌  ' });
    expect(song.statusCode, song.body).toBe(201);
    expect(song.json()).toMatchObject({ livestreamId: ARCHIVED, at: 3723.25, text: 'Song: 残響散歌', author: 'local/alice' });
    expect((await add(bob, ARCHIVED, { at: 0, text: 'Opening <b>&</b>' })).statusCode).toBe(201);

    const listed = (await kura.app.inject({ url: `/api/video/${ARCHIVED}/moments` })).json() as Array<{ at: number; text: string }>;
    expect(listed.map((m) => [m.at, m.text])).toEqual([
      [0, 'Opening <b>&</b>'],
      [3723.25, 'Song: 残響散歌'],
    ]);
    const details = (await kura.app.inject({ url: `/api/video/${ARCHIVED}` })).json() as { moments: unknown[] };
    expect(details.moments).toEqual(listed);
    const lines = await kura.app.inject({ url: `/api/video/${ARCHIVED}/moments.txt` });
    expect(lines.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(lines.body).toBe('0:00 Opening <b>&</b>\n1:02:03 Song: 残響散歌\n');

    await receiver.waitFor(2);
    expect(receiver.refusedSignatures).toEqual([]);
    const sent = receiver.received.find((r) => (r.data.moment as { text: string }).text === 'Song: 残響散歌');
    expect(sent?.type).toBe('moment.added');
    expect(sent?.data).toMatchObject({ id: ARCHIVED, title: 'Karaoke', moment: { at: 3723.25, author: 'local/alice', id: song.json().id } });
  });

  it('is changed or removed by its author or an admin only', async () => {
    const moment = (await add(alice, ARCHIVED, { at: 60, text: 'Announcement' })).json() as { id: string };
    const refused = await change(bob, 'PATCH', moment.id, { text: 'Mine now' });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'not_moment_author' });
    expect((await change(bob, 'DELETE', moment.id)).statusCode).toBe(403);
    const edited = await change(alice, 'PATCH', moment.id, { at: 61.5 });
    expect(edited.json()).toMatchObject({ at: 61.5, text: 'Announcement' });
    expect((await change(admin, 'PATCH', moment.id, { text: 'Big announcement' })).json()).toMatchObject({ at: 61.5, text: 'Big announcement' });
    expect((await change(admin, 'DELETE', moment.id)).statusCode).toBe(204);
    const gone = await change(alice, 'DELETE', moment.id);
    expect(gone.json()).toMatchObject({ status: 404, code: 'moment_not_found' });
  });

  it('refuses a stranger before reading the body, and bad times and texts with the field named', async () => {
    const stranger = await add(null, ARCHIVED, { at: 'nonsense' });
    expect(stranger.json()).toMatchObject({ status: 401, code: 'not_logged_in' });
    const cases: Array<[unknown, RegExp]> = [
      [{ at: 7201, text: 'After the end' }, /^at: 7201 s is past what is recorded \(7200 s\)/],
      [{ at: 1, text: '   ' }, /^text: a moment says what happened/],
      [{ at: 1, text: 'x'.repeat(201) }, /^text: at most 200 characters/],
      [{ at: 1, text: 'two\nlines' }, /^text: one line/],
    ];
    for (const [body, detail] of cases) {
      const response = await add(alice, ARCHIVED, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json().detail).toMatch(detail);
    }
    const invalid = await add(alice, ARCHIVED, { at: -1, text: 'x' });
    expect(invalid.json()).toMatchObject({ status: 400 });
    const upcoming = await add(alice, 'upcoming001', { at: 1, text: 'Too early' });
    expect(upcoming.json()).toMatchObject({ status: 409, code: 'livestream_state_conflict' });
    expect((await add(alice, 'noSuchRec01', { at: 1, text: 'x' })).json()).toMatchObject({ status: 404, code: 'livestream_not_found' });
  });
});
