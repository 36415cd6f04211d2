import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { addUser, logIn, SAME_ORIGIN } from '../support/accounts.js';
import { buildRecord, buildRecords, type HistoryRecordJson } from '../support/factories.js';

let kura: TestApp;
beforeEach(async () => {
  kura = await startTestApp();
});
afterEach(() => kura.close());

const at = (hours: number) => new Date(Date.UTC(2025, 0, 1) + hours * 3_600_000).toISOString();

/** A finished record of `channelId` at hour `hour`, with a known size and length. */
const archive = (id: string, channelId: string, hour: number, extra: Partial<HistoryRecordJson> = {}) =>
  buildRecord({
    id,
    channelId,
    channelName: `${channelId} name`,
    scheduledStart: at(hour),
    title: `${id} title`,
    fileSizeBytes: 1000 * hour,
    length: 60 * hour,
    ...extra,
  });
const upcoming = (id: string, channelId: string, hour: number) =>
  buildRecord({ id, channelId, channelName: `${channelId} name`, scheduledStart: at(hour), finished: false });
const failed = (id: string, channelId: string, hour: number) =>
  buildRecord({
    id,
    channelId,
    channelName: `${channelId} name`,
    scheduledStart: at(hour),
    finished: false,
    status: 'failed',
    fileSizeBytes: 5e9,
    length: 999,
  });

async function channels(query = '') {
  const response = await kura.app.inject({ url: `/api/channels${query}` });
  expect(response.statusCode, response.body).toBe(200);
  return { body: response.json(), total: response.headers['x-kura-pagination-total'], hasMore: response.headers['x-kura-pagination-has-more'] };
}
const channel = (id: string) => kura.app.inject({ url: `/api/channels/${encodeURIComponent(id)}` });
async function history(query: string) {
  const response = await kura.app.inject({ url: `/api/history${query}` });
  return {
    status: response.statusCode,
    body: response.json(),
    ids: response.statusCode === 200 ? response.json().map((r: HistoryRecordJson) => r.id) : [],
    total: response.headers['x-kura-pagination-total'],
    hasMore: response.headers['x-kura-pagination-has-more'],
  };
}

describe('GET /api/channels', () => {
  it('sums each channel: finished ones are archives, upcoming counted apart, failed ones not at all; latest archive first', async () => {
    await kura.load([
      archive('a1', 'UC-a', 1),
      archive('a2', 'UC-a', 5),
      upcoming('a3', 'UC-a', 50),
      failed('a4', 'UC-a', 60),
      archive('b1', 'UC-b', 10),
      upcoming('c1', 'UC-c', 40),
      failed('d1', 'UC-d', 30),
    ]);
    const list = await channels();
    expect(list.body).toEqual([
      {
        channelId: 'UC-b',
        channelName: 'UC-b name',
        archives: 1,
        upcoming: 0,
        totalFileSize: 10_000,
        totalLength: 600,
        latestArchive: { id: 'b1', title: 'b1 title', scheduledStart: at(10) },
        followed: false,
      },
      {
        channelId: 'UC-a',
        channelName: 'UC-a name',
        archives: 2,
        upcoming: 1,
        totalFileSize: 6000,
        totalLength: 360,
        latestArchive: { id: 'a2', title: 'a2 title', scheduledStart: at(5) },
        followed: false,
      },
      // nothing archived yet: after every channel with an archive
      { channelId: 'UC-c', channelName: 'UC-c name', archives: 0, upcoming: 1, totalFileSize: 0, totalLength: 0, latestArchive: null, followed: false },
    ]);
    expect(list).toMatchObject({ total: '3', hasMore: 'false' });
    expect((await channel('UC-a')).json()).toEqual(list.body[1]);
    // a channel whose only record failed has nothing to show
    expect((await channel('UC-d')).statusCode).toBe(404);
  });

  it('pages like the history, with the same headers and limits', async () => {
    await kura.load(buildRecords(120)); // 50 channels, each with 2 or 3 archives
    const first = await channels('?limit=20');
    expect(first.body).toHaveLength(20);
    expect(first).toMatchObject({ total: '50', hasMore: 'true' });
    const last = await channels('?page=2&limit=20');
    expect(last.body).toHaveLength(10);
    expect(last.hasMore).toBe('false');
    const all = (await channels('?limit=500')).body; // clamped to 100
    expect(all).toHaveLength(50);
    expect([...first.body, ...(await channels('?page=1&limit=20')).body, ...last.body]).toEqual(all);
    const latest = all.map((c: { latestArchive: { scheduledStart: string } }) => c.latestArchive.scheduledStart);
    expect(latest).toEqual([...latest].sort().reverse());
    expect((await channels('?page=3&limit=20')).body).toEqual([]);
    for (const query of ['?limit=0', '?page=-1', '?page=1e3']) {
      const response = await kura.app.inject({ url: `/api/channels${query}` });
      expect(response.statusCode, query).toBe(400);
      expect(response.json().code).toBe('invalid_parameter');
    }
  });

  it('follows re-imports: a record that finishes, is retitled, moves to another channel or fails', async () => {
    await kura.load([archive('a1', 'UC-a', 1), upcoming('a2', 'UC-a', 20), archive('b1', 'UC-b', 2)]);
    // the upcoming stream is archived under a new channel name, and an old archive is retitled
    await kura.load([archive('a2', 'UC-a', 20, { channelName: 'Renamed A' })]);
    await kura.load([archive('a2', 'UC-a', 20, { channelName: 'Renamed A', title: 'Retitled' })]);
    expect((await channel('UC-a')).json()).toMatchObject({
      channelName: 'Renamed A',
      archives: 2,
      upcoming: 0,
      totalFileSize: 21_000,
      totalLength: 1260,
      latestArchive: { id: 'a2', title: 'Retitled', scheduledStart: at(20) },
    });
    // b1 moves to UC-a: UC-b has nothing left and leaves the list
    await kura.load([archive('b1', 'UC-a', 2)]);
    expect((await channel('UC-b')).json()).toMatchObject({ status: 404, code: 'channel_not_found' });
    const list = await channels();
    expect(list.body.map((c: { channelId: string }) => c.channelId)).toEqual(['UC-a']);
    expect(list.body[0]).toMatchObject({ archives: 3, totalFileSize: 23_000 });
    expect(list.total).toBe('1');
    // the latest archive fails (an admin's re-import): the one before it becomes the latest
    await kura.load([failed('a2', 'UC-a', 20)]);
    expect((await channel('UC-a')).json()).toMatchObject({ archives: 2, totalFileSize: 3000, latestArchive: { id: 'b1', title: 'b1 title' } });
  });

  it("drops a taken-down archive from its channel's counts and latest archive", async () => {
    await addUser(kura, 'root', { admin: true });
    const admin = await logIn(kura, 'root');
    await kura.load([archive('a1', 'UC-a', 1), archive('a2', 'UC-a', 2), archive('b1', 'UC-b', 3)]);
    const takeDown = (id: string) =>
      kura.app.inject({ method: 'DELETE', url: `/api/video/${id}`, headers: { ...SAME_ORIGIN, cookie: admin }, payload: { reason: 'asked by the streamer' } });
    expect((await takeDown('a2')).statusCode).toBe(204);
    expect((await channel('UC-a')).json()).toMatchObject({ archives: 1, totalFileSize: 1000, totalLength: 60, latestArchive: { id: 'a1' } });
    expect((await takeDown('a1')).statusCode).toBe(204);
    expect((await channel('UC-a')).statusCode).toBe(404);
    expect(await channels()).toMatchObject({ body: [expect.objectContaining({ channelId: 'UC-b' })], total: '1' });
  });

  it('answers 404 channel_not_found for an unknown channel, and 4xx for a channel id no record can have', async () => {
    const unknown = await channel('UC-nobody');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(unknown.json()).toMatchObject({ status: 404, code: 'channel_not_found', detail: expect.stringContaining('UC-nobody') });
    expect((await channel('a\u0000b')).json()).toMatchObject({ status: 400, code: 'invalid_parameter' });
    expect((await channel('x'.repeat(201))).json()).toMatchObject({ status: 414, code: 'path_parameter_too_long' });
    // the longest channel id an import takes is still a channel's address
    const longest = 'h'.repeat(200);
    await kura.load([archive('long1', longest, 1)]);
    expect((await channel(longest)).json()).toMatchObject({ channelId: longest, archives: 1 });
  });

  it('agrees with a full recount after a large mixed import (the aggregates never drift)', async () => {
    await kura.load(buildRecords(3000, { unfinishedEvery: 7 }));
    await kura.load([...buildRecords(500, { offset: 2800, unfinishedEvery: 3 }), failed('rec00000010', 'UC-moved', 1)]);
    const { rows } = await kura.db.pool.query(`
      select channel_id as "channelId",
             count(*) filter (where status = 'finished')::int as archives,
             count(*) filter (where status in ('upcoming', 'live'))::int as upcoming,
             coalesce(sum(file_size_bytes) filter (where status = 'finished'), 0)::float8 as "totalFileSize",
             coalesce(sum(length_seconds) filter (where status = 'finished'), 0)::float8 as "totalLength",
             (array_agg(id order by scheduled_start_at desc, id desc) filter (where status = 'finished'))[1] as latest
        from livestreams group by channel_id having count(*) filter (where status <> 'failed') > 0`);
    const listed = (await channels('?limit=100')).body;
    expect(listed).toHaveLength(rows.length);
    for (const row of rows) {
      const { latest, ...counts } = row;
      expect(listed.find((c: { channelId: string }) => c.channelId === row.channelId)).toMatchObject({ ...counts, latestArchive: { id: latest } });
    }
  });
});

describe('followed channels', () => {
  let admin: string;
  beforeEach(async () => {
    await addUser(kura, 'root', { admin: true });
    admin = await logIn(kura, 'root');
  });
  /** Follows an HLS endpoint: its channel id is a slug of the channel name (`Karaoke Night` → `karaoke-night`). */
  async function follow(channel: string, url = `http://127.0.0.1:9/${encodeURIComponent(channel)}/index.m3u8`) {
    const response = await kura.app.inject({ method: 'POST', url: '/api/follows', headers: { ...SAME_ORIGIN, cookie: admin }, payload: { url, channel } });
    expect(response.statusCode, response.body).toBe(201);
    return response.json() as { id: string; channelId: string };
  }

  it('lists a followed channel before its first record, with zero counts and its name, after the channels with records', async () => {
    await kura.load([archive('a1', 'UC-a', 1), upcoming('c1', 'UC-c', 40), failed('d1', 'karaoke-night', 30)]);
    // the page is cached: a new follow must empty the cache like a new record does
    expect((await channels()).total).toBe('2');
    const karaoke = await follow('Karaoke Night');
    expect(karaoke.channelId).toBe('karaoke-night');
    await follow('Band Practice');
    const list = await channels();
    expect(list.body.map((c: { channelId: string }) => c.channelId)).toEqual(['UC-a', 'UC-c', 'band-practice', 'karaoke-night']);
    expect(list.body[3]).toEqual({
      channelId: 'karaoke-night',
      // the name its (failed) record gave; a channel never recorded shows the follow's
      channelName: 'karaoke-night name',
      archives: 0,
      upcoming: 0,
      totalFileSize: 0,
      totalLength: 0,
      latestArchive: null,
      followed: true,
    });
    expect(list.body[2]).toMatchObject({ channelName: 'Band Practice', archives: 0, followed: true });
    expect(list.body.slice(0, 2).map((c: { followed: boolean }) => c.followed)).toEqual([false, false]);
    expect(list.total).toBe('4');
    // pages run from the channels with records into the followed ones
    const second = await channels('?page=1&limit=3');
    expect(second).toMatchObject({ total: '4', hasMore: 'false' });
    expect(second.body.map((c: { channelId: string }) => c.channelId)).toEqual(['karaoke-night']);
    expect((await channels('?page=1&limit=2')).body.map((c: { channelId: string }) => c.channelId)).toEqual(['band-practice', 'karaoke-night']);
    expect((await channels('?page=2&limit=2')).body).toEqual([]);

    expect((await channel('band-practice')).json()).toMatchObject({ channelId: 'band-practice', channelName: 'Band Practice', archives: 0, followed: true });
    // the channel page's history of a followed channel without archives is empty, not an error
    expect(await history('?channelId=band-practice')).toMatchObject({ status: 200, body: [], total: '0' });
  });

  it('marks a followed channel with records as followed, and drops a channel whose follow is removed and has no record', async () => {
    await kura.load([archive('k1', 'karaoke-night', 3)]);
    expect((await channel('karaoke-night')).json()).toMatchObject({ followed: false, archives: 1 });
    const karaoke = await follow('Karaoke Night');
    const other = await follow('Lonely Channel');
    expect((await channel('karaoke-night')).json()).toMatchObject({ followed: true, archives: 1, channelName: 'karaoke-night name' });
    // one channel followed twice (two endpoints) is listed once
    await follow('Karaoke Night', 'http://127.0.0.1:9/second/index.m3u8');
    expect(await channels()).toMatchObject({ total: '2', body: [{ channelId: 'karaoke-night', followed: true }, { channelId: 'lonely-channel' }] });

    const remove = (id: string) => kura.app.inject({ method: 'DELETE', url: `/api/follows/${id}`, headers: { ...SAME_ORIGIN, cookie: admin } });
    expect((await remove(other.id)).statusCode).toBe(204);
    expect((await channel('lonely-channel')).json()).toMatchObject({ status: 404, code: 'channel_not_found' });
    expect(await channels()).toMatchObject({ total: '1', body: [{ channelId: 'karaoke-night', followed: true }] });
    expect((await remove(karaoke.id)).statusCode).toBe(204);
    // still followed through its second endpoint
    expect((await channel('karaoke-night')).json()).toMatchObject({ followed: true });
  });
});

describe('GET /api/history?channelId=', () => {
  it("pages through one channel's records with that channel's totals in the headers", async () => {
    await kura.load([
      ...Array.from({ length: 30 }, (_, i) => archive(`a${i}`, 'UC-a', i + 1)),
      upcoming('a-next', 'UC-a', 100),
      failed('a-failed', 'UC-a', 101),
      ...Array.from({ length: 10 }, (_, i) => archive(`b${i}`, 'UC-b', i + 1)),
    ]);
    const first = await history('?channelId=UC-a&limit=20');
    expect(first).toMatchObject({ status: 200, total: '30', hasMore: 'true' });
    expect(first.ids).toEqual(Array.from({ length: 20 }, (_, i) => `a${29 - i}`));
    const second = await history('?channelId=UC-a&limit=20&page=1');
    expect(second).toMatchObject({ total: '30', hasMore: 'false' });
    expect(second.ids).toEqual(Array.from({ length: 10 }, (_, i) => `a${9 - i}`));
    // the last page read from the other end gives the same records
    expect((await history('?channelId=UC-a&limit=7&page=4&sort=asc')).ids).toEqual(['a28', 'a29']);
    const everything = await history('?channelId=UC-a&unfinished=true&limit=3');
    expect(everything).toMatchObject({ total: '32', hasMore: 'true' });
    expect(everything.ids).toEqual(['a-failed', 'a-next', 'a29']);
    // the unfiltered history is not mixed up with the filtered one in the read cache
    expect(await history('?limit=20')).toMatchObject({ total: '40' });
    expect((await history('?channelId=UC-b&limit=20')).ids).toEqual(Array.from({ length: 10 }, (_, i) => `b${9 - i}`));
  });

  it('answers an unknown channel with an empty page, and refuses an empty or overlong channel id', async () => {
    await kura.load([archive('a1', 'UC-a', 1)]);
    expect(await history('?channelId=UC-nobody')).toMatchObject({ status: 200, body: [], total: '0', hasMore: 'false' });
    for (const value of ['', 'x'.repeat(201), 'a%00b']) {
      const response = await history(`?channelId=${value}`);
      expect(response.status, value.slice(0, 10)).toBe(400);
      expect(response.body).toMatchObject({ code: 'invalid_parameter', detail: expect.stringContaining('channelId') });
    }
  });

  it('moves with the records: an archive added to the channel is on its first page at once', async () => {
    await kura.load([archive('a1', 'UC-a', 1)]);
    expect((await history('?channelId=UC-a')).ids).toEqual(['a1']);
    await kura.load([archive('a2', 'UC-a', 2)]);
    expect(await history('?channelId=UC-a')).toMatchObject({ ids: ['a2', 'a1'], total: '2' });
  });
});
