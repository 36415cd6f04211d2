import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LivestreamInput } from '../../src/core/records/livestream.js';
import { watchStream } from '../../src/core/record-actions/watch-stream.js';
import { addUser, logIn, SAME_ORIGIN } from '../support/accounts.js';
import { startTestApp, testSources, type TestApp } from '../support/app.js';

// A queued record says why it waits: the watch job's last look at its source (a real HLS check of
// a playlist on 127.0.0.1 that answers 404), shown by the queue and the record, redacted but for the admin.
let kura: TestApp;
let playlists: http.Server;
let adminCookie: string;
beforeAll(async () => {
  playlists = http.createServer((_request, response) => void response.writeHead(404).end());
  await new Promise<void>((resolve) => playlists.listen(0, '127.0.0.1', resolve));
  kura = await startTestApp();
  await addUser(kura, 'root', { admin: true });
  adminCookie = await logIn(kura, 'root');
});
afterAll(async () => {
  await kura?.close();
  await new Promise<void>((resolve) => playlists.close(() => resolve()));
});

const policy = { pollSeconds: 15, neverLiveSeconds: 12 * 3600 };

/** An upcoming HLS record of its own whose playlist URL carries a secret. */
async function queued(id: string, status: LivestreamInput['status'] = 'upcoming'): Promise<string> {
  const { port } = playlists.address() as { port: number };
  const sourceUrl = `http://127.0.0.1:${port}/${id}/index.m3u8?token=s3cret`;
  await kura.db.livestreams.upsertMany([
    {
      id,
      platform: 'hls',
      sourceUrl,
      status,
      failureReason: null,
      title: `Stream ${id}`,
      channelName: '127.0.0.1',
      channelId: '127.0.0.1',
      thumbnailUrl: null,
      scheduledStart: new Date(),
      startedAt: status === 'live' ? new Date() : null,
      endedAt: null,
      archive: null,
      submitters: ['local/root'],
      requestedQuality: null,
    },
  ]);
  return sourceUrl;
}

const look = (id: string, now: Date) =>
  watchStream(
    { livestreams: kura.db.livestreams, source: testSources(), scheduler: kura.jobs, watchLooks: kura.db.watchLooks, ...nothingKept() },
    id,
    policy,
    now,
  );
// these records are upcoming: no capture is kept, nothing is deleted
const nothingKept = () => ({ captures: kura.db.captures, store: { delete: () => Promise.reject(new Error('nothing is kept for an upcoming record')) } });
const get = async (url: string, cookie?: string) => (await kura.app.inject({ method: 'GET', url, headers: cookie ? { ...SAME_ORIGIN, cookie } : {} })).json();

describe('a queued record that cannot be reached', () => {
  it('shows its last check’s answer, when it was and the next one, on the queue and the record; the URL’s secret to the admin only', async () => {
    await queued('hls-unreach1');
    expect((await get('/api/video/hls-unreach1')).lastCheck).toBeNull(); // not looked at yet
    const inQueue = async (cookie?: string) => (await get('/api/queue', cookie)).find((r: { id: string }) => r.id === 'hls-unreach1');
    expect((await inQueue()).lastCheck).toBeNull(); // and read into the cache
    const now = new Date();
    expect(await look('hls-unreach1', now)).toBe('waiting');
    await kura.caughtUp(); // the look reached the read cache, as a change to the record would
    const expected = {
      at: now.toISOString(),
      result: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/hls-unreach1\/index\.m3u8\?token=\*\*\*: HTTP 404$/),
      nextAt: new Date(now.getTime() + 15_000).toISOString(),
    };
    expect((await inQueue()).lastCheck).toEqual(expected);
    expect((await get('/api/video/hls-unreach1')).lastCheck).toEqual(expected);
    expect((await get('/api/video/hls-unreach1', adminCookie)).lastCheck.result).toMatch(/\?token=s3cret: HTTP 404$/);
    expect((await inQueue(adminCookie)).lastCheck.result).toMatch(/\?token=s3cret: HTTP 404$/);
  });

  it('shows the newest look only, and none once the record is live', async () => {
    await queued('hls-unreach2');
    const first = new Date(Date.now() - 60_000);
    await look('hls-unreach2', first);
    const second = new Date();
    await look('hls-unreach2', second);
    expect((await get('/api/video/hls-unreach2')).lastCheck.at).toBe(second.toISOString());
    await queued('hls-onair001', 'live');
    await kura.db.watchLooks.note('hls-onair001', { lookedAt: first, reason: 'no segment yet', nextLookAt: second });
    expect((await get('/api/video/hls-onair001')).lastCheck).toBeNull();
    await kura.caughtUp();
    expect((await get('/api/queue')).find((r: { id: string }) => r.id === 'hls-onair001').lastCheck).toBeNull();
  });
});
