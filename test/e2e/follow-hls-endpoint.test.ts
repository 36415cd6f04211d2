import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { utcMinute } from '../../src/core/records/record-names.js';
import { freePort, launchBrowser, logInOnPage } from '../support/browser.js';
import { useCaptureHarness } from '../support/capture-harness.js';
import { runKura, spawnKura, type KuraProcess } from '../support/cli.js';
import { startHlsEndpointFixture, type EndpointBroadcast, type HlsEndpointFixture } from '../support/hls-endpoint-fixture.js';
import { probe } from '../support/hls-fixture.js';
import { waitForFollowRecords, waitForRecord } from '../support/records.js';
import { startS3, type TestS3 } from '../support/s3.js';
import { e2eEnv } from '../support/serve-env.js';

// A followed HLS endpoint that is live only sometimes (MediaMTX, Owncast, nginx-rtmp), with the
// real `kura serve`: each broadcast becomes a record of its own, recorded whole, and nothing is
// queued while the endpoint answers 404.
const h = useCaptureHarness();
let endpoint: HlsEndpointFixture | null = null;
let s3: TestS3 | null = null;
const processes: KuraProcess[] = [];
let opened: Browser | null = null;
afterEach(async () => {
  await opened?.close();
  opened = null;
  for (const kura of processes.splice(0)) {
    kura.child.kill('SIGKILL');
    await kura.exited;
  }
  await endpoint?.close();
  endpoint = null;
  await s3?.stop();
  s3 = null;
});

/** The follow polls every second; a capture ends after 2 s of 404s; nothing else ends one. */
const FOLLOW_ENV = { KURA_FOLLOW_POLL_SECONDS: '1', KURA_CAPTURE_OFFLINE_SECONDS: '2', KURA_CAPTURE_IDLE_SECONDS: '60' };
const PLAYLIST = /\/live\/index\.m3u8$/;

async function followEndpoint(url: string): Promise<string> {
  const added = await runKura(['follow', 'add', url, '--channel', 'Karaoke night'], h.env(), path.dirname(h.dataDir));
  expect(added.code, added.stderr).toBe(0);
  return added.stdout.trim();
}

const getJson = async (url: string) => {
  const response = await fetch(url);
  expect(response.status, url).toBe(200);
  return response.json();
};

/** The playlist requests the endpoint had since request number `from` (all answered 404 when it is offline). */
const playlistRequests = (live: HlsEndpointFixture, from: number) => live.requests.slice(from).filter((r) => PLAYLIST.test(r)).length;

/** Every minute from `from` to `to`, as titles carry them. */
function minutesBetween(from: Date, to: Date): string[] {
  const minutes: string[] = [];
  for (let at = Math.floor(from.getTime() / 60_000) * 60_000; at <= to.getTime(); at += 60_000) minutes.push(utcMinute(new Date(at)));
  return minutes;
}

/**
 * Broadcasts for `seconds`, waits for the follow's record of it (the `n`th), until the recorder
 * fetched every segment, then goes offline and waits until the record is done. Resolves with the
 * record, the broadcast and the minutes its title may name.
 */
async function broadcastOnce(live: HlsEndpointFixture, followId: string, n: number, seconds: number, listSize?: number) {
  const from = new Date();
  const broadcast: EndpointBroadcast = live.broadcast({ seconds, listSize, fps: listSize === undefined ? undefined : 10 });
  const records = await waitForFollowRecords(h.db.url, followId, n);
  const queuedBy = new Date();
  const id = (records[n - 1] as { id: string }).id;
  await broadcast.fetchedAll();
  await live.goOffline();
  const offlineFrom = live.requests.length;
  const done = await h.settled(id);
  expect(done.status, done.failure_reason ?? '').toBe('finished');
  return { id, broadcast, offlineFrom, minutes: minutesBetween(from, queuedBy) };
}

describe('following an HLS endpoint that is live only sometimes', () => {
  it('makes one complete archive of each broadcast, and nothing while the endpoint answers 404', async () => {
    const live = (endpoint = await startHlsEndpointFixture());
    await live.goOffline(); // offline from the start: the playlist answers 404
    const followId = await followEndpoint(live.url);
    const api = await h.serve(FOLLOW_ENV);
    const followUrl = `${api}/api/follows/${followId}`;
    const recordsNow = () => waitForFollowRecords(h.db.url, followId, 0);

    // a 404 is an answer (the endpoint is offline), not a failure: nothing queued, the follow healthy
    await live.offlineAnswers(3);
    const waiting = await getJson(followUrl);
    expect(waiting).toMatchObject({
      kind: 'hls_endpoint',
      channelId: 'karaoke-night',
      channelName: 'Karaoke night',
      health: 'ok',
      queued: 0,
      failingSince: null,
    });
    expect(waiting.signals).toEqual([expect.objectContaining({ signal: 'playlist', lastError: null, lastOkAt: expect.any(String) })]);
    expect(await recordsNow()).toEqual([]);

    const first = await broadcastOnce(live, followId, 1, 6);
    // the recorder is done and the endpoint still answers 404: the follow keeps asking, and queues nothing
    await live.offlineAnswers(playlistRequests(live, first.offlineFrom) + 3);
    expect(await recordsNow()).toEqual([{ id: first.id, status: 'finished' }]);

    const second = await broadcastOnce(live, followId, 2, 5);
    expect(second.id).not.toBe(first.id);
    expect(await recordsNow()).toEqual([
      { id: first.id, status: 'finished' },
      { id: second.id, status: 'finished' },
    ]);

    // each archive is its broadcast, whole, ended because the endpoint went offline
    for (const { id, broadcast } of [first, second]) {
      expect((await probe(h.archivedFile(id))).frames).toBe(broadcast.frames);
      expect((await getJson(`${api}/api/video/${id}`)).capture.endReason).toBe('offline');
    }
    const history = await getJson(`${api}/api/history?unfinished=true&channelId=karaoke-night`);
    expect(history.map((r: { id: string }) => r.id).sort()).toEqual([first.id, second.id].sort());
    for (const { id, minutes } of [first, second]) {
      const record = history.find((r: { id: string }) => r.id === id);
      expect(record).toMatchObject({ submitters: [`follow/${followId}`], channelId: 'karaoke-night', channelName: 'Karaoke night', status: 'finished' });
      expect(minutes.map((m) => `Karaoke night ${m} UTC`)).toContain(record.title);
    }
    const after = await getJson(followUrl);
    expect(after).toMatchObject({ health: 'ok', queued: 2, failingSince: null });
    expect(after.signals[0].lastError).toBeNull();
  }, 300_000);
});

describe('an HLS endpoint followed at the default pace', () => {
  it('is recorded from its first segment though its playlist keeps only 12 s: the follow looks every 5 s, not 30', async () => {
    const live = (endpoint = await startHlsEndpointFixture());
    await live.goOffline();
    const followId = await followEndpoint(live.url);
    const api = await h.serve({ KURA_CAPTURE_OFFLINE_SECONDS: '2', KURA_CAPTURE_IDLE_SECONDS: '60' }); // the default poll
    await live.offlineAnswers(1); // the broadcast begins just after a look: the next one is a whole period away
    const { id, broadcast } = await broadcastOnce(live, followId, 1, 14, 12);
    const details = await getJson(`${api}/api/video/${id}`);
    expect(details.capture.gaps).toEqual([]);
    expect(details.capture.complete).toBe(true);
    expect((await probe(h.archivedFile(id))).frames).toBe(broadcast.frames);
  }, 120_000);
});

describe('a followed broadcast an admin stopped', () => {
  it('stays stopped while it goes on (known, stopped by whom), and the next broadcast is queued as usual: both stops from the archive page', async () => {
    const live = (endpoint = await startHlsEndpointFixture());
    await live.goOffline();
    const followId = await followEndpoint(live.url);
    const cwd = path.dirname(h.dataDir);
    expect((await runKura(['user', 'add', 'alice', '--admin'], h.env(), cwd, 'alice-password-1\n')).code).toBe(0);
    // the public URL the browser's origin must match (a login from another origin is refused)
    const port = String(await freePort());
    const api = await h.serve({ ...FOLLOW_ENV, PORT: port, KURA_PUBLIC_URL: `http://127.0.0.1:${port}` });
    const browser = (opened = await launchBrowser());
    const page = await (await browser.newContext({ baseURL: api })).newPage();
    page.on('dialog', (dialog) => void dialog.accept('wrong room'));
    live.broadcast({ seconds: 30, fps: 10 });
    const [record] = await waitForFollowRecords(h.db.url, followId, 1);
    const id = (record as { id: string }).id;
    await waitForRecord(h.db.url, id, (r) => r.status === 'live');
    await logInOnPage(page, `/archive/${id}`);
    // a record a follow queued: its broadcast alone, or the follow's next ones too
    await page.getByRole('button', { name: 'Stop and pause the follow' }).waitFor();
    await page.getByRole('button', { name: 'Stop this broadcast' }).click();
    expect((await h.settled(id)).status).toBe('finished');
    // the broadcast goes on: many more looks (one a second), and no second record
    await live.playlistAsked(6);
    expect(await waitForFollowRecords(h.db.url, followId, 0)).toEqual([{ id, status: 'finished' }]);
    const decisions = (await getJson(`${api}/api/follows/${followId}`)).recent;
    expect(decisions).toEqual([
      expect.objectContaining({ streamId: id, verdict: 'known', reason: expect.stringMatching(/^stopped by local\/alice \(wrong room\): not queued again/) }),
    ]);
    expect((await getJson(`${api}/api/follows/${followId}`)).paused).toBe(false);

    // the next broadcast (after the endpoint went offline) is a new record; stopped with its follow, the follow is paused
    await live.goOffline();
    live.broadcast({ seconds: 30, fps: 10 });
    const records = await waitForFollowRecords(h.db.url, followId, 2);
    const next = (records.find((r: { id: string }) => r.id !== id) as { id: string }).id;
    await waitForRecord(h.db.url, next, (r) => r.status === 'live');
    await page.goto(`/archive/${next}`);
    await page.getByRole('button', { name: 'Stop and pause the follow' }).click();
    expect((await h.settled(next)).status).toBe('finished');
    await expect.poll(async () => (await getJson(`${api}/api/follows/${followId}`)).paused).toBe(true);
    // one decision per broadcast, newest first (the second 'queued', or 'known' if a look came between the stop and the pause)
    const recent = async () => (await getJson(`${api}/api/follows/${followId}`)).recent as Array<{ verdict: string; streamId: string }>;
    await expect.poll(async () => (await recent()).map((d) => d.streamId)).toEqual([next, id]);
    expect((await recent())[0]?.verdict).toMatch(/^(queued|known)$/);
  }, 120_000);
});

describe('an HLS endpoint whose playlist stays after its broadcast', () => {
  it('is not queued again once its record ended idle: the stale playlist is the broadcast already archived', async () => {
    const live = (endpoint = await startHlsEndpointFixture());
    await live.goOffline();
    const followId = await followEndpoint(live.url);
    // nginx-rtmp and others can leave the last playlist in place, unchanged and without ENDLIST
    const api = await h.serve({ ...FOLLOW_ENV, KURA_CAPTURE_IDLE_SECONDS: '3' });
    const broadcast = live.broadcast({ seconds: 4 });
    const [record] = await waitForFollowRecords(h.db.url, followId, 1);
    const id = (record as { id: string }).id;
    await broadcast.fetchedAll();
    const done = await h.settled(id);
    expect(done.status, done.failure_reason ?? '').toBe('finished');
    expect((await getJson(`${api}/api/video/${id}`)).capture.endReason).toBe('idle');
    // some checks of the follow after the record ended: each sees the same playlist, and queues nothing
    await live.playlistAsked(3);
    expect(await waitForFollowRecords(h.db.url, followId, 0)).toEqual([{ id, status: 'finished' }]);
    expect((await probe(h.archivedFile(id))).frames).toBe(broadcast.frames);
  }, 300_000);
});

describe('one HLS endpoint followed by two workers', () => {
  it('gives one broadcast exactly one record and one archive with every frame', async () => {
    const live = (endpoint = await startHlsEndpointFixture());
    await live.goOffline();
    const store = (s3 = await startS3());
    const followId = await followEndpoint(live.url);
    // one api and two workers on one database and one S3 store, each on a disk of its own, as a scaled-out instance runs
    const start = (role: 'api' | 'worker') => {
      const dataDir = path.join(path.dirname(h.dataDir), `${role}-${processes.length}`);
      const kura = spawnKura(['serve'], e2eEnv(h.db.url, dataDir, { ...store.env, ...FOLLOW_ENV, KURA_ROLE: role }), path.dirname(h.dataDir));
      processes.push(kura);
      return kura;
    };
    const api = (await start('api').waitForLog((l) => l.msg === 'kura api listening')).url as string;
    await Promise.all([start('worker'), start('worker')].map((w) => w.waitForLog((l) => l.msg === 'kura worker ready')));
    await live.offlineAnswers(4); // both workers' pollers are asking

    // 8 s live: some 8 checks of the follow, by either worker, see it live
    const { id, broadcast } = await broadcastOnce(live, followId, 1, 8);
    expect(await waitForFollowRecords(h.db.url, followId, 0)).toEqual([{ id, status: 'finished' }]);
    const { rows } = await h.db.pool.query<{ n: number }>('select count(*)::int as n from livestreams');
    expect(rows[0]?.n).toBe(1);
    expect(await getJson(`${api}/api/follows/${followId}`)).toMatchObject({ queued: 1, health: 'ok' });

    const redirect = await fetch(`${api}/api/download/${id}/video`, { redirect: 'manual' });
    expect(redirect.status).toBe(307);
    const downloaded = path.join(path.dirname(h.dataDir), 'broadcast.mp4');
    await writeFile(downloaded, new Uint8Array(await (await fetch(redirect.headers.get('location') as string)).arrayBuffer()));
    expect((await probe(downloaded)).frames).toBe(broadcast.frames);
  }, 300_000);
});
