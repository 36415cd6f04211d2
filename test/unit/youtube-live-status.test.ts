import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createYouTubeSource, type YtDlp } from '../../src/adapters/sources/youtube-source.js';
import { troubleInWords, YtDlpFailure, type YtDlpTrouble } from '../../src/adapters/ytdlp/ytdlp-trouble.js';
import { readPackageInfo } from '../../src/adapters/os/package-info.js';

// What yt-dlp's answers mean for a record and a recording (decision 0088): only YouTube's word
// that the broadcast ended is an end; a run that failed or could not say is a passing trouble.
const fixture = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(path.join(readPackageInfo().root, 'test', 'fixtures', 'yt-dlp', `${name}.json`), 'utf8')) as Record<string, unknown>;
const URL_OF_FIXTURE = 'https://www.youtube.com/watch?v=dQw4w9WgXcQ';
const answering =
  (fromStart: object, hls: object = fixture('live'), warnings: string[] = []): YtDlp =>
  async (_url, options) => ({ json: options?.fromStart === false ? hls : fromStart, warnings, withCookies: false });
const failing =
  (trouble: YtDlpTrouble, message: string): YtDlp =>
  async () => {
    throw new YtDlpFailure(trouble, message);
  };

/**
 * The live stream once ended, as yt-dlp 2026.08 lists a post_live video: its adaptive formats with
 * their fragments listed (`http_dash_segments`), `is_from_start` removed, `target_duration` and
 * `_itag` kept (`_prepare_live_from_start_formats`, the `not is_live` branch).
 */
function postLive(): Record<string, unknown> {
  const live = fixture('live-from-start');
  const formats = (live.formats as Array<Record<string, unknown>>).map(({ is_from_start: _mark, ...format }) => ({
    ...format,
    is_live: false,
    protocol: 'http_dash_segments',
    fragments: [0, 1, 2].map((sq) => ({ url: `${format.url as string}&sq=${sq}`, fragment_count: 3 })),
  }));
  return { ...live, live_status: 'post_live', is_live: false, was_live: true, formats };
}

describe('what a YouTube look says of a stream', () => {
  it('takes a failed yt-dlp run for a passing trouble, never an end, naming a rate limit or a bot check', async () => {
    const check = (message: string) => createYouTubeSource(failing(troubleInWords(message), message)).check(URL_OF_FIXTURE, null);
    expect(await check('Unable to download API page: HTTP Error 429: Too Many Requests')).toEqual({
      state: 'unknown',
      trouble: 'rate_limited',
      reason: 'YouTube rate-limits Kura: Unable to download API page: HTTP Error 429: Too Many Requests',
    });
    expect(await check('Sign in to confirm you’re not a bot. Use --cookies-from-browser or --cookies for the authentication.')).toMatchObject({
      state: 'unknown',
      trouble: 'bot_check',
    });
    expect(await check('yt-dlp stopped (SIGTERM)')).toEqual({ state: 'unknown', trouble: 'failed', reason: 'yt-dlp stopped (SIGTERM)' });
    // what is gone is gone
    expect((await check('Private video. Sign in if you have been granted access to this video')).state).toBe('gone');
  });

  it('takes a missing live status for a passing trouble, not an end, naming the bot check yt-dlp warned of', async () => {
    const status = await createYouTubeSource(answering({ ...fixture('live-from-start'), live_status: null })).check(URL_OF_FIXTURE, null);
    expect(status).toMatchObject({ state: 'unknown', trouble: 'no_status' });
    // with --ignore-no-formats-error a bot check is a warning and JSON without videoDetails
    const botCheck = 'Sign in to confirm you’re not a bot. Use --cookies-from-browser or --cookies for the authentication.';
    const refused = await createYouTubeSource(answering({ ...fixture('upcoming'), live_status: null, formats: [] }, fixture('live'), [botCheck])).check(
      URL_OF_FIXTURE,
      null,
    );
    expect(refused).toMatchObject({ state: 'unknown', trouble: 'bot_check', reason: expect.stringMatching(/no live status .*not a bot/) });
    // submitted or followed then: refused for now, in words that are no verdict on the video (a follow tries again)
    const inspection = await createYouTubeSource(answering({ ...fixture('upcoming'), live_status: null, formats: [] }, fixture('live'), [botCheck])).inspect(
      URL_OF_FIXTURE,
    );
    expect(inspection).toMatchObject({
      kind: 'rejected',
      reason: expect.stringMatching(/^YouTube did not say what this video is now: .*not a bot.*try again later/),
    });
    expect(inspection.kind === 'rejected' && /not a livestream|already ended/i.test(inspection.reason)).toBe(false);
  });

  it('says not_live apart from ended, and ended for a processed video', async () => {
    expect((await createYouTubeSource(answering(fixture('not-live'))).check(URL_OF_FIXTURE, null)).state).toBe('not_live');
    const processed = await createYouTubeSource(answering(fixture('was-live'))).check(URL_OF_FIXTURE, null);
    expect(processed.state).toBe('ended');
    expect(processed.fragments).toBeUndefined();
  });

  it('records a broadcast that has just ended (post_live) through its listed fragments, from its start', async () => {
    const source = createYouTubeSource(answering(postLive()));
    const status = await source.check(URL_OF_FIXTURE, '1080p');
    expect(status).toMatchObject({ state: 'ended', fragments: { fragmentSeconds: 5, video: { id: '299' }, audio: { id: '140' } } });
    expect(status.fragments?.video.url).not.toMatch(/[?&]sq=/);
    expect(await source.inspect(URL_OF_FIXTURE)).toMatchObject({ kind: 'accepted', id: 'dQw4w9WgXcQ' });
    // processed: nothing left to record
    expect(await createYouTubeSource(answering(fixture('was-live'))).inspect(URL_OF_FIXTURE)).toMatchObject({
      kind: 'rejected',
      reason: expect.stringMatching(/processed/),
    });
  });

  it('says why there is no fallback when YouTube lists HLS video and audio apart (yt-dlp 2026.08 without cookies)', async () => {
    const noAudio = fixture('live-from-start');
    const videoOnly = { ...noAudio, formats: (noAudio.formats as Array<{ vcodec: string }>).filter((f) => f.vcodec !== 'none') };
    const live = fixture('live');
    const split = {
      ...live,
      formats: (live.formats as Array<Record<string, unknown>>).map((f, i) => (i === 0 ? { ...f, vcodec: 'none' } : { ...f, acodec: 'none' })),
    };
    const status = await createYouTubeSource(answering(videoOnly, split)).check(URL_OF_FIXTURE, null);
    expect(status.state).toBe('not_yet');
    expect(status.reason).toMatch(/HLS formats carry video and audio apart \(\d+ listed, none muxed\)/);
  });
});
