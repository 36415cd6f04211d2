import { describe, expect, it } from 'vitest';
import { probe, SEGMENT_REQUEST } from '../support/hls-fixture.js';
import { stitchAds } from '../support/hls-ads.js';
import { ALICE_STREAM, aliceOnTwitch as alice } from '../support/live-site-state.js';
import { useSiteHarness } from '../support/site-harness.js';

// Live sites other than YouTube through yt-dlp (decision 0133), with the STAND-IN yt-dlp answering
// as its Twitch, TwitCasting and niconico extractors do (test/support/yt-dlp-sites.mjs) and a live
// HLS fixture on 127.0.0.1 as the site's playlist.
const RECORD_ID = `twitch-${ALICE_STREAM}`;
const h = useSiteHarness();

describe('archiving the live stream of a site yt-dlp opens (yt-dlp stand-in)', () => {
  it('records a Twitch channel’s broadcast under its id without its ads, across a playlist URL that expires, and refuses the channel once offline', async () => {
    const fixture = await h.startFixture({ seconds: 20 });
    // a mid-roll: segments 8–10 (3 s) are ads Twitch stitched in
    fixture.playlistEdit = stitchAds([8, 9, 10]);
    const api = await h.serve();
    const encoded = fixture.start();
    await fixture.onAir();
    await h.sitesSay(alice(`${fixture.url}?token=first`));
    const queued = await h.archive('https://www.twitch.tv/Alice');
    expect(queued.code, queued.stderr).toBe(0);
    expect(queued.stdout).toContain(RECORD_ID);
    const record = await fetch(`${api}/api/video/${RECORD_ID}`).then((r) => r.json());
    expect(record).toMatchObject({
      platform: 'twitch',
      title: '朝の雑談 ☀',
      channelId: 'twitch:alice',
      channelName: 'Alice',
      sourceUrl: 'https://www.twitch.tv/alice#kura-broadcast=41234567890',
    });
    await fixture.seen(SEGMENT_REQUEST, 5);
    // Twitch's token expires: the old playlist URL answers 403, and yt-dlp hands out a fresh one
    await h.sitesSay(alice(`${fixture.url}?token=second`));
    fixture.fail = (_path, rawUrl) => (rawUrl.includes('token=first') ? 403 : null);
    await encoded;
    const done = await h.settled(RECORD_ID);
    expect(done.status, done.failure_reason ?? '').toBe('finished');
    const details = await fetch(`${api}/api/video/${RECORD_ID}`).then((r) => r.json());
    // the ads are cut, not lost: the archive is complete, and says where they were
    expect(details.capture).toMatchObject({ gaps: [], complete: true, adBreaks: [{ at: 8, seconds: 3 }] });
    const log = await fetch(`${api}/api/download/${RECORD_ID}/log`).then((r) => r.text());
    expect(log).toMatch(/playlist URL refreshed \(it answered 403\)/);
    // cut as the playlist lists them (one a poll at the live edge), one break in the record
    expect(log).toMatch(/ad cut: sequences 8-\d+ /);
    expect(log).toMatch(/ad cut: sequences \d+-10 /);
    // every second of the stream but the ads' 3 (30 frames a second), and no ad segment fetched
    expect((await probe(h.archivedFile(RECORD_ID))).frames).toBe(510);
    expect(fixture.requests.filter((request) => /seg0*(8|9|10)\.ts$/.test(request))).toEqual([]);
    // each look left yt-dlp's generic extractor out: only a site's own extractor opens a URL
    const runs = await h.ytDlpRuns();
    expect(runs.length).toBeGreaterThan(1);
    expect(runs.every((run) => run.join(' ').includes('--use-extractors default,-generic'))).toBe(true);

    await h.sitesSay(alice(fixture.url, false));
    const offline = await h.archive('https://www.twitch.tv/alice');
    expect(offline.code).toBe(1);
    expect(offline.stderr).toContain('This channel is not live now. To record its next stream, follow the channel (Follows).');
  });

  it('records a TwitCasting live with the Origin and Referer its CDN answers only with', async () => {
    const fixture = await h.startFixture({ seconds: 10 });
    // as TwitCasting's CDN: no playlist or segment without the site's own Origin and Referer
    fixture.fail = (_path, _url, headers) => (headers.origin === 'https://twitcasting.tv' && headers.referer === 'https://twitcasting.tv/' ? null : 403);
    await h.serve();
    const encoded = fixture.start();
    await fixture.onAir();
    await h.sitesSay({ twitcasting: { bob: { live: true, movieId: 812345, title: 'ゲーム配信', hlsUrl: fixture.url, websocket: true } } });
    const queued = await h.archive('https://twitcasting.tv/bob');
    expect(queued.code, queued.stderr).toBe(0);
    await encoded;
    const done = await h.settled('twitcasting-812345');
    expect(done.status, done.failure_reason ?? '').toBe('finished');
    expect((await h.db.pool.query('select source_url from livestreams where id = $1', ['twitcasting-812345'])).rows[0].source_url).toBe(
      'https://twitcasting.tv/bob/movie/812345',
    );
    expect((await probe(h.archivedFile('twitcasting-812345'))).frames).toBe(300);
  });

  it('refuses, with the reason, a stream offered only over a WebSocket, niconico’s live HLS, a rerun and a URL no site takes', async () => {
    await h.sitesSay({
      twitch: { rerun: { live: true, type: 'rerun', streamId: '7', hlsUrl: 'http://127.0.0.1:9/x.m3u8' } },
      twitcasting: { carol: { live: true, movieId: 812346 } },
      niconico: { lv345678901: { title: '生放送' } },
    });
    const refusals: Array<[string, string]> = [
      ['https://twitcasting.tv/carol', 'twitcasting offers this stream only as websocket_frag, which Kura cannot record: it records HLS it fetches itself.'],
      ['https://live.nicovideo.jp/watch/lv345678901', 'niconico offers this stream only as niconico_live, which Kura cannot record'],
      ['https://www.twitch.tv/rerun', 'This is not a live stream, or it is not live now.'],
      ['https://example.com/watch/1', 'yt-dlp opens no site at this URL.'],
    ];
    for (const [url, reason] of refusals) {
      const refused = await h.archive(url);
      expect(refused.code, url).toBe(1);
      expect(refused.stderr, url).toContain(reason);
    }
    expect((await h.db.pool.query('select count(*)::int as n from livestreams')).rows[0].n).toBe(0);
  });
});
