import { describe, expect, it } from 'vitest';
import type { Fetcher } from '../../src/adapters/sources/http-fetch.js';
import { loadPlaylist, pickVariant, resourceKey } from '../../src/adapters/sources/hls-playlist.js';

const variants = [
  { url: 'https://cdn.example/360.m3u8', bandwidth: 800_000, height: 360 },
  { url: 'https://cdn.example/1080.m3u8', bandwidth: 6_000_000, height: 1080 },
  { url: 'https://cdn.example/720.m3u8', bandwidth: 3_000_000, height: 720 },
];

describe('picking a variant of a master playlist', () => {
  it('takes the highest bandwidth by default and for "best"', () => {
    expect(pickVariant(variants, null)?.height).toBe(1080);
    expect(pickVariant(variants, 'best')?.height).toBe(1080);
  });

  it('takes the best variant at most as tall as the requested quality', () => {
    expect(pickVariant(variants, '720p')?.height).toBe(720);
    expect(pickVariant(variants, '900p')?.height).toBe(720);
  });

  it('falls back to the smallest variant when none is that small', () => {
    expect(pickVariant(variants, '144p')?.height).toBe(360);
  });
});

describe('reading a media playlist', () => {
  const playlistOf = (text: string): Pick<Fetcher, 'text'> => ({ text: async () => text });

  it('resolves segments and their initialization sections, byte ranges included', async () => {
    const text = [
      '#EXTM3U',
      '#EXT-X-VERSION:7',
      '#EXT-X-TARGETDURATION:2',
      '#EXT-X-MEDIA-SEQUENCE:40',
      '#EXT-X-MAP:URI="init.mp4",BYTERANGE="700@0"',
      '#EXTINF:2.0,',
      '#EXT-X-BYTERANGE:1000@700',
      'media.mp4',
      '#EXTINF:2.0,',
      '#EXT-X-BYTERANGE:900',
      'media.mp4',
      '#EXT-X-MAP:URI="../other/init.mp4"',
      '#EXT-X-DISCONTINUITY',
      '#EXTINF:1.5,',
      'seg42.m4s',
      '#EXT-X-ENDLIST',
      '',
    ].join('\n');
    const playlist = await loadPlaylist('https://cdn.example/live/index.m3u8', playlistOf(text));
    if (playlist.kind !== 'media') throw new Error('expected a media playlist');
    expect(playlist.ended).toBe(true);
    expect(playlist.segments).toEqual([
      {
        sequence: 40,
        url: 'https://cdn.example/live/media.mp4',
        range: { offset: 700, length: 1000 },
        durationSeconds: 2,
        discontinuity: false,
        key: null,
        ad: false,
        init: { url: 'https://cdn.example/live/init.mp4', range: { offset: 0, length: 700 } },
      },
      {
        sequence: 41,
        url: 'https://cdn.example/live/media.mp4',
        range: { offset: 1700, length: 900 },
        durationSeconds: 2,
        discontinuity: false,
        key: null,
        ad: false,
        init: { url: 'https://cdn.example/live/init.mp4', range: { offset: 0, length: 700 } },
      },
      {
        sequence: 42,
        url: 'https://cdn.example/live/seg42.m4s',
        range: null,
        durationSeconds: 1.5,
        discontinuity: true,
        key: null,
        ad: false,
        init: { url: 'https://cdn.example/other/init.mp4', range: null },
      },
    ]);
    const [first, second, third] = playlist.segments.map((s) => resourceKey(s.init!));
    expect(first).toBe(second);
    expect(third).not.toBe(first);
  });

  it('gives MPEG-TS segments no initialization section', async () => {
    const text = ['#EXTM3U', '#EXT-X-TARGETDURATION:1', '#EXTINF:1.0,', 'seg0.ts', ''].join('\n');
    const playlist = await loadPlaylist('http://origin.example/a/b.m3u8', playlistOf(text));
    expect(playlist.kind === 'media' && playlist.segments[0]).toMatchObject({ url: 'http://origin.example/a/seg0.ts', range: null, init: null });
  });

  it('carries an encryption key to the segments after it, with its IV when the playlist gives one', async () => {
    const text = [
      '#EXTM3U',
      '#EXT-X-TARGETDURATION:1',
      '#EXT-X-MEDIA-SEQUENCE:7',
      '#EXT-X-KEY:METHOD=AES-128,URI="/keys/1"',
      '#EXTINF:1.0,',
      'a.ts',
      '#EXTINF:1.0,',
      'b.ts',
      '#EXT-X-KEY:METHOD=AES-128,URI="/keys/2",IV=0x000102030405060708090a0b0c0d0e0f',
      '#EXTINF:1.0,',
      'c.ts',
      '#EXT-X-KEY:METHOD=NONE',
      '#EXTINF:1.0,',
      'd.ts',
      '',
    ].join('\n');
    const playlist = await loadPlaylist('https://cdn.example/live/index.m3u8', playlistOf(text));
    if (playlist.kind !== 'media') throw new Error('expected a media playlist');
    expect(playlist.segments.map((s) => s.key)).toEqual([
      { method: 'AES-128', url: 'https://cdn.example/keys/1', iv: null },
      { method: 'AES-128', url: 'https://cdn.example/keys/1', iv: null },
      { method: 'AES-128', url: 'https://cdn.example/keys/2', iv: Buffer.from('000102030405060708090a0b0c0d0e0f', 'hex') },
      null,
    ]);
  });

  it('marks the ads Twitch stitches in: by their date range while it lasts, and by their Amazon title', async () => {
    // a mid-roll of 4 s announced by its date range (streamlink's TagDateRangeAd), then a title alone
    const text = [
      '#EXTM3U',
      '#EXT-X-TARGETDURATION:2',
      '#EXT-X-MEDIA-SEQUENCE:100',
      '#EXT-X-DATERANGE:ID="stitched-ad-1",CLASS="twitch-stitched-ad",START-DATE="2026-11-30T10:00:04.000Z",DURATION=4.000,X-TV-TWITCH-AD-ROLL-TYPE="MIDROLL"',
      ...[0, 2, 4, 6, 8].flatMap((at, i) => [
        ...(i === 2 || i === 4 ? ['#EXT-X-DISCONTINUITY'] : []),
        `#EXT-X-PROGRAM-DATE-TIME:2026-11-30T10:00:0${at}.000Z`,
        '#EXTINF:2.000,live',
        `seg${100 + i}.ts`,
      ]),
      '#EXT-X-PROGRAM-DATE-TIME:2026-11-30T10:00:10.000Z',
      '#EXTINF:2.000,Amazon|987',
      'seg105.ts',
      '#EXT-X-DATERANGE:ID="other-1",CLASS="twitch-session",START-DATE="2026-11-30T10:00:12.000Z",DURATION=2.000',
      '#EXT-X-PROGRAM-DATE-TIME:2026-11-30T10:00:12.000Z',
      '#EXTINF:2.000,live',
      'seg106.ts',
      '',
    ].join('\n');
    const playlist = await loadPlaylist('http://usher.example/v1/index.m3u8', playlistOf(text));
    expect(playlist.kind === 'media' && playlist.segments.map((s) => [s.sequence, s.ad])).toEqual([
      [100, false],
      [101, false],
      [102, true],
      [103, true],
      [104, false],
      [105, true],
      [106, false],
    ]);
  });
});
