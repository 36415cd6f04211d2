import { describe, expect, it } from 'vitest';
import { broadcastOf, readSiteVideo, recordIdOf, recordUrlOf } from '../../src/adapters/sources/site-video.js';
import { siteAnswer } from '../support/yt-dlp-sites.mjs';

// What Kura reads of yt-dlp's answer for a live site other than YouTube, from the stand-in's
// answers (test/support/yt-dlp-sites.mjs), which are yt-dlp's extractors' shapes
// (docs/research/live-sites-contract.md §1).
const HLS = 'http://127.0.0.1:9/live/index.m3u8';
const sites = {
  twitch: { alice: { live: true, streamId: '41234567890', displayName: 'Alice', title: '朝の雑談 ☀', startedAt: 1_796_000_000, hlsUrl: HLS, height: 1080 } },
  twitcasting: { bob: { live: true, movieId: 812345, title: 'ゲーム配信', hlsUrl: HLS, websocket: true }, carol: { live: true, movieId: 812346 } },
  niconico: { lv345678901: { title: '生放送', channelId: 'co12345' } },
};
const read = (url: string) => readSiteVideo((siteAnswer(url, sites) as { json: unknown }).json);

describe('a live site’s broadcast as yt-dlp describes it', () => {
  it('reads Twitch’s: the broadcast’s title from its description, the channel by login, the HLS formats with video', () => {
    const video = read('https://www.twitch.tv/Alice');
    expect(video).toEqual({
      site: 'twitch',
      id: '41234567890',
      pageUrl: 'https://www.twitch.tv/alice',
      liveStatus: 'is_live',
      details: {
        title: '朝の雑談 ☀',
        channelName: 'Alice',
        channelId: 'twitch:alice',
        scheduledStart: new Date(1_796_000_000_000),
        thumbnailUrl: 'https://static-cdn.jtvnw.net/previews-ttv/live_user_alice-0x0.jpg',
      },
      // audio_only has no video: it is not a quality to record
      variants: [{ url: HLS, bandwidth: 3_000_000, width: 1920, height: 1080 }],
      otherProtocols: [],
    });
    expect(recordIdOf(video!)).toBe('twitch-41234567890');
    // a Twitch page is the channel's: the record's URL names the broadcast, after a # the site never sees
    const recordUrl = recordUrlOf(video!, 'https://www.twitch.tv/Alice');
    expect(recordUrl).toBe('https://www.twitch.tv/alice#kura-broadcast=41234567890');
    expect(broadcastOf(recordUrl)).toEqual({ page: 'https://www.twitch.tv/alice', broadcast: '41234567890' });
  });

  it('reads a rerun as not live, and a TwitCasting movie by its own page', () => {
    expect(
      readSiteVideo((siteAnswer('https://www.twitch.tv/alice', { twitch: { alice: { ...sites.twitch.alice, type: 'rerun' } } }) as { json: unknown }).json)
        ?.liveStatus,
    ).toBe('not_live');
    const movie = read('https://twitcasting.tv/bob');
    expect(movie).toMatchObject({ site: 'twitcasting', id: '812345', liveStatus: 'is_live', otherProtocols: ['websocket_frag'] });
    expect(movie?.details).toMatchObject({ title: 'ゲーム配信', channelId: 'twitcasting:bob' });
    // with the headers its CDN checks (TwitCasting's _M3U8_HEADERS), and none of yt-dlp's own
    expect(movie?.variants).toEqual([
      { url: HLS, bandwidth: 0, width: 1280, height: 720, headers: { Origin: 'https://twitcasting.tv', Referer: 'https://twitcasting.tv/' } },
    ]);
    // the movie's page names it: the record's URL is that page
    expect(recordUrlOf(movie!, 'https://twitcasting.tv/bob')).toBe('https://twitcasting.tv/bob/movie/812345');
    expect(broadcastOf('https://twitcasting.tv/bob/movie/812345')).toEqual({ page: 'https://twitcasting.tv/bob/movie/812345', broadcast: null });
  });

  it('lists nothing to record of a stream offered only over a WebSocket or as niconico’s live HLS, and says what it offers', () => {
    expect(read('https://twitcasting.tv/carol')).toMatchObject({ variants: [], otherProtocols: ['websocket_frag'] });
    expect(read('https://live.nicovideo.jp/watch/lv345678901')).toMatchObject({
      site: 'niconico',
      variants: [],
      otherProtocols: ['niconico_live'],
      details: { channelId: 'niconico:co12345' },
    });
  });

  it('makes a record id of any broadcast id, and of none that is not one', () => {
    expect(recordIdOf({ site: 'bilibili', id: '21/45:x' })).toBe('bilibili-21_45_x');
    expect(recordIdOf({ site: 'twitch', id: '9'.repeat(80) })).toHaveLength(64);
    expect(readSiteVideo({ title: 'no id', extractor: 'twitch:stream' })).toBeNull();
    expect(readSiteVideo({ id: '1' })).toBeNull();
  });
});
