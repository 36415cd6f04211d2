import { stat } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { freePort, launchBrowser, screenshot, seriousViolations } from '../support/browser.js';
import { runKura } from '../support/cli.js';
import { startHelixStandIn, type HelixStandIn } from '../support/helix-stand-in.js';
import { probe, SEGMENT_REQUEST } from '../support/hls-fixture.js';
import { stitchAds } from '../support/hls-ads.js';
import { ALICE_STREAM, aliceOnTwitch } from '../support/live-site-state.js';
import { waitForRecord } from '../support/records.js';
import { useSiteHarness } from '../support/site-harness.js';

// The whole story of a followed Twitch channel (issue 56, decisions 0133 and 0135), with the real
// `kura serve`: Twitch's API is the STAND-IN Helix (test/support/helix-stand-in.ts), yt-dlp the
// STAND-IN answering as its Twitch extractor (test/support/yt-dlp-sites.mjs), the stream a live
// HLS fixture that stitches in ads as Twitch does.
const RECORD_ID = `twitch-${ALICE_STREAM}`;
const h = useSiteHarness();
let twitch: HelixStandIn;
let browser: Browser | null = null;
beforeEach(async () => {
  twitch = await startHelixStandIn();
  twitch.users.set('alice', 'Alice');
});
afterEach(async () => {
  await browser?.close();
  browser = null;
  await twitch.close();
});

const env = () =>
  h.env({
    KURA_TWITCH_CLIENT_ID: twitch.clientId,
    KURA_TWITCH_CLIENT_SECRET: twitch.clientSecret,
    KURA_TWITCH_API_URL: twitch.apiUrl,
    KURA_TWITCH_AUTH_URL: twitch.authUrl,
    KURA_FOLLOW_POLL_SECONDS: '1',
  });

describe('a followed Twitch channel (Helix and yt-dlp stand-ins)', () => {
  it('goes live, is recorded by itself without its mid-roll, across a playlist URL that expires, and its archive has every other frame', async () => {
    const fixture = await h.startFixture({ seconds: 20 });
    fixture.playlistEdit = stitchAds([8, 9, 10]);
    await h.sitesSay(aliceOnTwitch(fixture.url, false));
    const added = await runKura(['follow', 'add', 'https://www.twitch.tv/Alice', '--title-exclude', 'rerun'], env(), h.cwd);
    expect(added.code, added.stderr).toBe(0);
    const followId = added.stdout.trim();
    const port = String(await freePort());
    const api = await h.serve({ ...env(), PORT: port, KURA_PUBLIC_URL: `http://127.0.0.1:${port}` });
    // offline: the follow asks Helix, and queues nothing
    await twitch.asked('/helix/streams', 2);
    expect(await h.db.pool.query('select id from livestreams')).toMatchObject({ rowCount: 0 });

    // Alice goes live: Helix lists her stream, yt-dlp opens it
    const encoded = fixture.start();
    await fixture.onAir();
    await h.sitesSay(aliceOnTwitch(`${fixture.url}?token=first`));
    twitch.live.set('alice', { streamId: ALICE_STREAM, title: '朝の雑談 ☀' });
    await waitForRecord(h.db.url, RECORD_ID, (r) => r.status === 'live');
    const submitters = await h.db.pool.query("select provider || '/' || user_id as submitter from livestream_submitters where livestream_id = $1", [RECORD_ID]);
    expect(submitters.rows).toEqual([{ submitter: `follow/${followId}` }]);
    await fixture.seen(SEGMENT_REQUEST, 5);
    // Twitch's token expires: the old playlist URL answers 403, and yt-dlp hands out a fresh one
    await h.sitesSay(aliceOnTwitch(`${fixture.url}?token=second`));
    fixture.fail = (_path, rawUrl) => (rawUrl.includes('token=first') ? 403 : null);
    await encoded;
    const done = await h.settled(RECORD_ID);
    expect(done.status, done.failure_reason ?? '').toBe('finished');

    const details = await fetch(`${api}/api/video/${RECORD_ID}`).then((r) => r.json());
    expect(details).toMatchObject({ platform: 'twitch', title: '朝の雑談 ☀', channelId: 'twitch:alice', channelName: 'Alice' });
    expect(details.capture).toMatchObject({ gaps: [], complete: true, adBreaks: [{ at: 8, seconds: 3 }] });
    const log = await fetch(`${api}/api/download/${RECORD_ID}/log`).then((r) => r.text());
    expect(log).toMatch(/playlist URL refreshed \(it answered 403\)/);
    // the archive as a viewer downloads it: 20 s at 30 frames a second, less the ads' 3 s
    const file = h.archivedFile(RECORD_ID);
    expect((await probe(file)).frames).toBe(510);
    const download = await fetch(`${api}/api/download/${RECORD_ID}/video`, { method: 'HEAD' });
    expect(download.status).toBe(200);
    expect(Number(download.headers.get('content-length'))).toBe((await stat(file)).size);

    // the archive page plays it, its timeline marking where the ads were cut; the mark seeks there
    browser = await launchBrowser();
    const page = await (await browser.newContext({ baseURL: api })).newPage();
    await page.goto(`/archive/${RECORD_ID}`);
    const player = page.locator('[data-testid=player][data-mode=archive]');
    await expect.poll(() => player.evaluate((v: HTMLVideoElement) => v.duration)).toBeCloseTo(17, 0);
    const cut = page.getByTestId('chapter-bar').getByRole('button', { name: '0:03 of ads at 0:08', exact: true });
    await cut.click();
    await expect.poll(() => player.evaluate((v: HTMLVideoElement) => v.currentTime)).toBeCloseTo(8, 1);
    expect(await page.getByTestId('ad-breaks').innerText()).toBe('0:03 of ads at 0:08');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'twitch-archive-ad-cut');

    // the follow's page says what it queued; Helix was asked about every followed login at once
    const follow = await fetch(`${api}/api/follows/${followId}`).then((r) => r.json());
    expect(follow).toMatchObject({ kind: 'twitch_channel', queued: 1, health: 'ok' });
    expect(twitch.requests.filter((r) => r.path === '/helix/streams').every((r) => r.status === 200 && r.logins.join() === 'alice')).toBe(true);
    expect(twitch.grants()).toBe(2); // one for `kura follow add`, one for the worker
  });
});
