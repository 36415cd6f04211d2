import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { addUser, logIn, SAME_ORIGIN } from '../support/accounts.js';
import { finishedRecord } from '../support/archives.js';

// Handles and channel ids are resolved by the real yt-dlp resolver the app is wired with, running
// the yt-dlp STAND-IN (test/support/bin/yt-dlp-stand-in.mjs): YouTube knows one channel, @karaoke.
const CHANNEL = 'UCabcdefghijklmnopqrstuv';

let kura: TestApp;
let dir: string;
let admin: string;
let user: string;
/** The channel URLs yt-dlp was asked about, in order. */
const asked = async () =>
  (await readFile(path.join(dir, 'calls.log'), 'utf8').catch(() => ''))
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as string[]).at(-1));
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'kura-follows-api-'));
  const state = { channels: { [CHANNEL]: { handle: '@karaoke', name: 'Karaoke Channel', streams: [] } }, calls: path.join(dir, 'calls.log') };
  await writeFile(path.join(dir, 'state.json'), JSON.stringify(state));
  process.env.YTDLP_STAND_IN_STATE = path.join(dir, 'state.json');
  kura = await startTestApp();
  await addUser(kura, 'root', { admin: true });
  await addUser(kura, 'viewer');
  admin = await logIn(kura, 'root');
  user = await logIn(kura, 'viewer');
});
afterEach(async () => {
  await kura.close();
  delete process.env.YTDLP_STAND_IN_STATE;
  await rm(dir, { recursive: true, force: true });
});

const send = (method: 'POST' | 'PATCH' | 'DELETE', url: string, cookie: string | undefined, payload?: unknown) =>
  kura.app.inject({
    method,
    url,
    headers: { ...SAME_ORIGIN, ...(cookie ? { cookie } : {}) },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
const create = (payload: unknown) => send('POST', '/api/follows', admin, payload);

describe('follows API', () => {
  it('creates a YouTube follow from a handle, resolved once to its channel id, and lists it publicly with its health', async () => {
    const created = await create({ url: 'https://www.youtube.com/@karaoke/streams', titleInclude: 'karaoke', quality: '720p' });
    expect(created.statusCode, created.body).toBe(201);
    const follow = created.json();
    expect(follow).toMatchObject({
      id: expect.stringMatching(/^[A-Za-z0-9_-]{12}$/),
      kind: 'youtube_channel',
      url: `https://www.youtube.com/channel/${CHANNEL}`,
      channelId: CHANNEL,
      channelName: 'Karaoke Channel',
      rules: { titleInclude: 'karaoke', titleExclude: null, membersOnly: 'skip', quality: '720p' },
      paused: false,
      createdBy: expect.stringMatching(/^local\//),
      health: 'ok',
      queued: 0,
      lastCheckedAt: null,
      failingSince: null,
    });
    expect(follow.signals.map((s: { signal: string }) => s.signal)).toEqual(['feed', 'tabs']);
    expect(await asked()).toEqual(['https://www.youtube.com/@karaoke']);

    const list = await kura.app.inject({ url: '/api/follows' });
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual([follow]);
    const one = await kura.app.inject({ url: `/api/follows/${follow.id}` });
    expect(one.json()).toEqual({ ...follow, recent: [] });
    expect(await asked()).toEqual(['https://www.youtube.com/@karaoke']); // reading never asks YouTube again
  });

  it('refuses the same channel twice (409 already_followed), whichever form names it', async () => {
    expect((await create({ url: '@karaoke' })).statusCode).toBe(201);
    const again = await create({ url: CHANNEL });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: 'already_followed', status: 409 });
  });

  it('creates an HLS endpoint follow named by --channel with a slug channel id', async () => {
    const created = await create({ url: 'http://127.0.0.1:9/live/index.m3u8', channel: 'Karaoke Night' });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({ kind: 'hls_endpoint', channelId: 'karaoke-night', channelName: 'Karaoke Night', title: null });
    expect(created.json().signals.map((s: { signal: string }) => s.signal)).toEqual(['playlist']);
  });

  it('keeps the names an admin gives as submissions keep theirs, and refuses names that are not JSON strings', async () => {
    const created = await create({ url: 'http://127.0.0.1:9/named/index.m3u8', channel: 'Karaoke\u202e Night\u0007', title: '\u200bLate\tshow ' });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({ channelName: 'Karaoke Night', title: 'Late show' });
    const renamed = await send('PATCH', `/api/follows/${created.json().id}`, admin, { channel: 'Ina\u2066 night', title: 'Encore\u0007' });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json()).toMatchObject({ channelName: 'Ina night', title: 'Encore' });
    for (const [method, url, body] of [
      ['POST', '/api/follows', { url: 'http://127.0.0.1:9/other/index.m3u8', channel: ['a'] }],
      ['POST', '/api/follows', { url: 'http://127.0.0.1:9/other/index.m3u8', title: 5 }],
      ['PATCH', `/api/follows/${created.json().id}`, { channel: ['a'] }],
      ['PATCH', `/api/follows/${created.json().id}`, { title: ['a'] }],
    ] as const) {
      const refused = await send(method, url, admin, body);
      expect(refused.statusCode, refused.body).toBe(400);
      expect(refused.json().detail ?? refused.json().message).toMatch(/must be a JSON string/);
    }
    // null clears the title (the channel's name is the records' title again)
    const cleared = await send('PATCH', `/api/follows/${created.json().id}`, admin, { title: null });
    expect(cleared.statusCode, cleared.body).toBe(200);
    expect(cleared.json()).toMatchObject({ channelName: 'Ina night', title: null });
    const invisible = await send('PATCH', `/api/follows/${created.json().id}`, admin, { channel: '\u202e\u200b' });
    expect(invisible.statusCode, invisible.body).toBe(400);
  });

  it('keeps retention limits on a follow, which govern the archives it queued before its channel’s do', async () => {
    const created = await create({ url: 'http://127.0.0.1:9/ina/index.m3u8', channel: 'Ina', keepLast: 1 });
    expect(created.json()).toMatchObject({ channelId: 'ina', retention: { keepLast: 1, maxAgeDays: null, maxGb: null } });
    const id = created.json().id as string;
    const archive = { fileSizeBytes: 10, lengthSeconds: 1, videoKey: null, logKey: null, thumbnailKey: null, sha256: null, externalUrl: null };
    const day = (n: number) => new Date(Date.UTC(2026, 10, n));
    await kura.db.livestreams.upsertMany([
      { ...finishedRecord('by-follow-1', archive), channelId: 'ina', channelName: 'Ina', submitters: [`follow/${id}`], endedAt: day(2) },
      { ...finishedRecord('by-follow-2', archive), channelId: 'ina', channelName: 'Ina', submitters: [`follow/${id}`], endedAt: day(3) },
      { ...finishedRecord('by-hand', archive), channelId: 'ina', channelName: 'Ina', endedAt: day(4) },
    ]);
    expect((await send('PATCH', '/api/channels/ina/retention', admin, { keepLast: 0 })).json()).toEqual({ keepLast: 0, maxAgeDays: null, maxGb: null });

    const plan = await send('POST', '/api/retention/preview', admin, {});
    expect(plan.json()).toEqual({
      removals: [
        { id: 'by-follow-1', title: 'Stream by-follow-1', sizeBytes: 10, reason: 'retention: keep the last 1 of follow Ina' },
        { id: 'by-hand', title: 'Stream by-hand', sizeBytes: 10, reason: 'retention: keep the last 0 of channel Ina' },
      ],
      count: 2,
      bytes: 20,
    });
    // cleared on the follow, its archives fall to the channel's rules
    const cleared = await send('PATCH', `/api/follows/${id}`, admin, { keepLast: null, maxGb: 2.5 });
    expect(cleared.json().retention).toEqual({ keepLast: null, maxAgeDays: null, maxGb: 2.5 });
    expect((await send('PATCH', `/api/follows/${id}`, admin, { maxGb: null })).json().retention).toEqual({ keepLast: null, maxAgeDays: null, maxGb: null });
    expect((await send('POST', '/api/retention/preview', admin, { channel: 'ina' })).json()).toMatchObject({ count: 3, bytes: 30 });

    const refused = await send('PATCH', `/api/follows/${id}`, admin, { keepLast: 1.5 });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: 'invalid_body' });
    const both = await send('POST', '/api/retention/preview', admin, { follow: id, channel: 'ina' });
    expect(both.json()).toMatchObject({ status: 400, code: 'invalid_retention', detail: 'Give follow or channel, not both.' });
    expect((await send('PATCH', '/api/channels/ina/retention', user, { keepLast: 'x' })).statusCode).toBe(403);
    expect((await send('POST', '/api/retention/preview', undefined, {})).statusCode).toBe(401);
  });

  it('answers 400 invalid_follow with the reason for bad URLs, bad rules, unknown handles and Holodex without a key', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ url: 'https://example.org/not-a-stream' }, /neither a YouTube or Twitch channel nor an HLS playlist/],
      [{ url: '@karaoke', titleInclude: '(unclosed' }, /titleInclude is not a valid regular expression/],
      [{ url: '@karaoke', titleExclude: '(?!karaoke)' }, /titleExclude is not a valid regular expression: .*lookaround and backreferences are not supported/],
      [{ url: '@nobody' }, /could not find the YouTube channel @nobody: .*does not exist/],
      [{ url: 'holodex:org/Hololive' }, /HOLODEX_API_KEY/],
      [{ url: 'https://www.youtube.com/watch?v=abcdefghijk' }, /not a YouTube channel/],
    ];
    for (const [payload, reason] of cases) {
      const refused = await create(payload);
      expect(refused.statusCode, JSON.stringify(payload)).toBe(400);
      expect(refused.json()).toMatchObject({ code: 'invalid_follow' });
      expect(refused.json().detail).toMatch(reason);
    }
    const badQuality = await create({ url: '@karaoke', quality: 'huge' });
    expect(badQuality.statusCode).toBe(400);
    expect(badQuality.json().code).toBe('invalid_body');
    expect((await kura.app.inject({ url: '/api/follows' })).json()).toEqual([]);
  });

  it('answers 400 invalid_follow naming the rule when its counted repetitions make it too costly to compile, on POST and PATCH', async () => {
    // 495 characters that RE2 writes out to 110,000: the probe's rule took 2.35 s to create, then as long at every check
    const costly = '.{1,1000}'.repeat(55);
    const refused = await create({ url: '@karaoke', titleExclude: costly });
    expect(refused.statusCode, refused.body).toBe(400);
    expect(refused.json()).toMatchObject({ code: 'invalid_follow' });
    expect(refused.json().detail).toMatch(
      /^titleExclude is too costly to compile: its counted repetitions \(\{n,m\}\) write it out to 110000 characters, more than 2000/,
    );
    expect((await kura.app.inject({ url: '/api/follows' })).json()).toEqual([]);

    // a long rule without counts is no cost: 45 words
    const words = Array.from({ length: 45 }, (_, i) => `karaoke${i}`).join('|');
    const created = await create({ url: '@karaoke', titleInclude: words });
    expect(created.statusCode, created.body).toBe(201);
    const patched = await send('PATCH', `/api/follows/${created.json().id}`, admin, { titleInclude: costly });
    expect(patched.statusCode, patched.body).toBe(400);
    expect(patched.json()).toMatchObject({ code: 'invalid_follow' });
    expect(patched.json().detail).toMatch(/^titleInclude is too costly to compile/);
    expect((await kura.app.inject({ url: `/api/follows/${created.json().id}` })).json().rules.titleInclude).toBe(words);
  });

  it('is admin-only for writes, and judges the caller before the body (401/403 whatever was sent)', async () => {
    for (const payload of [{ url: '@karaoke' }, { nonsense: true }]) {
      expect((await send('POST', '/api/follows', undefined, payload)).json()).toMatchObject({ status: 401, code: 'not_logged_in' });
      expect((await send('POST', '/api/follows', user, payload)).json()).toMatchObject({ status: 403, code: 'admin_only' });
    }
    const id = (await create({ url: '@karaoke' })).json().id;
    expect((await send('PATCH', `/api/follows/${id}`, user, { paused: 'maybe' })).json()).toMatchObject({ status: 403, code: 'admin_only' });
    expect((await send('DELETE', `/api/follows/${id}`, undefined)).json()).toMatchObject({ status: 401 });
  });

  it('PATCH changes rules and pauses (health paused), resuming makes it due now; DELETE removes it (204, then 404)', async () => {
    const id = (await create({ url: '@karaoke', titleInclude: 'karaoke' })).json().id;
    const paused = await send('PATCH', `/api/follows/${id}`, admin, { paused: true, titleInclude: null, titleExclude: 'rerun', membersOnly: 'include' });
    expect(paused.statusCode, paused.body).toBe(200);
    expect(paused.json()).toMatchObject({ paused: true, health: 'paused', rules: { titleInclude: null, titleExclude: 'rerun', membersOnly: 'include' } });
    const later = new Date(Date.now() + 86_400_000);
    await kura.db.pool.query(`update follows set next_check_at = $2 where id = $1`, [id, later]);
    const resumed = await send('PATCH', `/api/follows/${id}`, admin, { paused: false });
    expect(resumed.json()).toMatchObject({ paused: false, health: 'ok' });
    expect(new Date(resumed.json().nextCheckAt).getTime()).toBeLessThanOrEqual(Date.now());

    const badRule = await send('PATCH', `/api/follows/${id}`, admin, { titleExclude: '[' });
    expect(badRule.statusCode).toBe(400);
    expect(badRule.json()).toMatchObject({ code: 'invalid_follow' });
    expect((await send('PATCH', `/api/follows/${id}`, admin, {})).json()).toMatchObject({ status: 400, code: 'invalid_body' });

    expect((await send('DELETE', `/api/follows/${id}`, admin)).statusCode).toBe(204);
    const gone = await send('DELETE', `/api/follows/${id}`, admin);
    expect(gone.json()).toMatchObject({ status: 404, code: 'follow_not_found' });
    expect((await kura.app.inject({ url: `/api/follows/${id}` })).json()).toMatchObject({ status: 404, code: 'follow_not_found' });
    expect((await send('PATCH', `/api/follows/${id}`, admin, { paused: true })).json()).toMatchObject({ status: 404, code: 'follow_not_found' });
  });

  it('shows a follow failing, then unhealthy after an hour of every signal failing', async () => {
    const id = (await create({ url: '@karaoke' })).json().id;
    await kura.db.pool.query(`update follows set failing_since = now() - interval '10 minutes' where id = $1`, [id]);
    expect((await kura.app.inject({ url: `/api/follows/${id}` })).json().health).toBe('failing');
    await kura.db.pool.query(`update follows set failing_since = now() - interval '61 minutes' where id = $1`, [id]);
    expect((await kura.app.inject({ url: '/api/follows' })).json()[0].health).toBe('unhealthy');
  });
});
