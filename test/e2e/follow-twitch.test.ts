import { chmod, mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { YTDLP_STAND_IN } from '../support/app.js';
import { runKura, spawnKura, type KuraProcess } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startHelixStandIn, type HelixStandIn } from '../support/helix-stand-in.js';
import { probe, SEGMENT_REQUEST, startHlsFixture, stitchAds, type HlsFixture } from '../support/hls-fixture.js';
import { ALICE_STREAM, aliceOnTwitch, sitesSay } from '../support/live-site-state.js';
import { waitForRecord } from '../support/records.js';
import { e2eEnv } from '../support/serve-env.js';

// The whole story of a followed Twitch channel (issue 56, decisions 0133 and 0139), with the real
// `kura serve`: Twitch's API is the STAND-IN Helix (test/support/helix-stand-in.ts), yt-dlp the
// STAND-IN answering as its Twitch extractor (test/support/yt-dlp-sites.mjs), the stream a live
// HLS fixture that stitches in ads as Twitch does.
const RECORD_ID = `twitch-${ALICE_STREAM}`;
let db: TestDatabase;
let cwd: string;
let twitch: HelixStandIn;
let fixture: HlsFixture | null = null;
let kura: KuraProcess | null = null;

beforeEach(async () => {
  db = await createTestDatabase();
  cwd = await mkdtemp(path.join(os.tmpdir(), 'kura-twitch-follow-'));
  await chmod(cwd, 0o755);
  twitch = await startHelixStandIn();
  twitch.users.set('alice', 'Alice');
});
afterEach(async () => {
  kura?.child.kill('SIGKILL');
  await kura?.exited;
  kura = null;
  await fixture?.close();
  fixture = null;
  await twitch.close();
  await db.drop();
  await rm(cwd, { recursive: true, force: true });
});

const stateFile = () => path.join(cwd, 'yt-dlp-state.json');
const env = () =>
  e2eEnv(db.url, path.join(cwd, 'data'), {
    YTDLP_PATH: YTDLP_STAND_IN,
    YTDLP_STAND_IN_STATE: stateFile(),
    KURA_TWITCH_CLIENT_ID: twitch.clientId,
    KURA_TWITCH_CLIENT_SECRET: twitch.clientSecret,
    KURA_TWITCH_API_URL: twitch.apiUrl,
    KURA_TWITCH_AUTH_URL: twitch.authUrl,
    KURA_FOLLOW_POLL_SECONDS: '1',
  });
const sites = (state: object) => sitesSay(stateFile(), path.join(cwd, 'yt-dlp-calls.log'), state);

describe('a followed Twitch channel (Helix and yt-dlp stand-ins)', () => {
  it('goes live, is recorded by itself without its mid-roll, across a playlist URL that expires, and its archive has every other frame', async () => {
    fixture = await startHlsFixture({ seconds: 20 });
    fixture.playlistEdit = stitchAds([8, 9, 10]);
    await sites(aliceOnTwitch(fixture.url, false));
    const added = await runKura(['follow', 'add', 'https://www.twitch.tv/Alice', '--title-exclude', 'rerun'], env(), cwd);
    expect(added.code, added.stderr).toBe(0);
    const followId = added.stdout.trim();
    kura = spawnKura(['serve'], env(), cwd);
    const api = (await kura.waitForLog((l) => l.msg === 'kura api listening')).url as string;
    // offline: the follow asks Helix, and queues nothing
    await twitch.asked('/helix/streams', 2);
    expect(await db.pool.query('select id from livestreams')).toMatchObject({ rowCount: 0 });

    // Alice goes live: Helix lists her stream, yt-dlp opens it
    const encoded = fixture.start();
    await fixture.onAir();
    await sites(aliceOnTwitch(`${fixture.url}?token=first`));
    twitch.live.set('alice', { streamId: ALICE_STREAM, title: '朝の雑談 ☀' });
    await waitForRecord(db.url, RECORD_ID, (r) => r.status === 'live');
    const submitters = await db.pool.query("select provider || '/' || user_id as submitter from livestream_submitters where livestream_id = $1", [RECORD_ID]);
    expect(submitters.rows).toEqual([{ submitter: `follow/${followId}` }]);
    await fixture.seen(SEGMENT_REQUEST, 5);
    // Twitch's token expires: the old playlist URL answers 403, and yt-dlp hands out a fresh one
    await sites(aliceOnTwitch(`${fixture.url}?token=second`));
    fixture.fail = (_path, rawUrl) => (rawUrl.includes('token=first') ? 403 : null);
    await encoded;
    const done = await waitForRecord(db.url, RECORD_ID, (r) => r.status === 'finished' || r.status === 'failed');
    expect(done.status, done.failure_reason ?? '').toBe('finished');

    const details = await fetch(`${api}/api/video/${RECORD_ID}`).then((r) => r.json());
    expect(details).toMatchObject({ platform: 'twitch', title: '朝の雑談 ☀', channelId: 'twitch:alice', channelName: 'Alice' });
    expect(details.capture).toMatchObject({ gaps: [], complete: true, adBreaks: [{ at: 8, seconds: 3 }] });
    const log = await fetch(`${api}/api/download/${RECORD_ID}/log`).then((r) => r.text());
    expect(log).toMatch(/playlist URL refreshed \(it answered 403\)/);
    // the archive as a viewer downloads it: 20 s at 30 frames a second, less the ads' 3 s
    const file = path.join(cwd, 'data', 'archive', 'archives', RECORD_ID, `${RECORD_ID}.mp4`);
    expect((await probe(file)).frames).toBe(510);
    const download = await fetch(`${api}/api/download/${RECORD_ID}/video`, { method: 'HEAD' });
    expect(download.status).toBe(200);
    expect(Number(download.headers.get('content-length'))).toBe((await stat(file)).size);

    // the follow's page says what it queued; Helix was asked about every followed login at once
    const follow = await fetch(`${api}/api/follows/${followId}`).then((r) => r.json());
    expect(follow).toMatchObject({ kind: 'twitch_channel', queued: 1, health: 'ok' });
    expect(twitch.requests.filter((r) => r.path === '/helix/streams').every((r) => r.status === 200 && r.logins.join() === 'alice')).toBe(true);
    expect(twitch.grants()).toBe(2); // one for `kura follow add`, one for the worker
  });
});
