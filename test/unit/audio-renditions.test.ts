import { describe, expect, it } from 'vitest';
import { laneListing, pairedRenditions, type LanePlaylist } from '../../src/adapters/capture/lane-listing.js';
import { ffmpegArgs } from '../../src/adapters/media/ffmpeg-args.js';
import { mp4Language } from '../../src/adapters/media/mp4-language.js';
import { parsePlaylist, pickVariant } from '../../src/adapters/sources/hls-playlist.js';
import { chooseAudio, type AudioRendition } from '../../src/adapters/sources/hls-renditions.js';
import { laneSpans } from '../../src/core/capture/playlist-lanes.js';

const MASTER_URL = 'https://cdn.example/live/master.m3u8';

/** A multivariant playlist whose 720p variant takes its audio from group `aac`, with these `#EXT-X-MEDIA` lines. */
function master(media: readonly string[]): string {
  return [
    '#EXTM3U',
    ...media.map((attributes) => `#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",${attributes}`),
    '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="other",NAME="Other",LANGUAGE="fr",URI="other/fr.m3u8"',
    '#EXT-X-STREAM-INF:BANDWIDTH=3000000,RESOLUTION=1280x720,AUDIO="aac"',
    'video/720.m3u8',
    '',
  ].join('\n');
}

/** The renditions Kura records of the master's variant with `choice`, as URLs relative to the master's folder. */
function chosen(media: readonly string[], choice: 'default' | 'all'): string[] {
  const playlist = parsePlaylist(master(media), MASTER_URL);
  if (playlist.kind !== 'master') throw new Error('not a master playlist');
  const variant = pickVariant(playlist.variants, null);
  return chooseAudio(variant?.audio ?? [], choice).map((lane) => lane.url.replace('https://cdn.example/live/', ''));
}

const english = 'NAME="English",LANGUAGE="en",URI="audio/en.m3u8"';
const japanese = 'NAME="日本語",LANGUAGE="ja",URI="audio/ja.m3u8"';

describe("choosing a variant's separate audio renditions", () => {
  it("records the group's DEFAULT=YES rendition, not another group's, whatever the order", () => {
    expect(chosen([english, `${japanese},DEFAULT=YES`], 'default')).toEqual(['audio/ja.m3u8']);
  });

  it('takes an AUTOSELECT=YES rendition when none is the default, else the first listed', () => {
    expect(chosen([english, `${japanese},AUTOSELECT=YES`], 'default')).toEqual(['audio/ja.m3u8']);
    expect(chosen([japanese, english], 'default')).toEqual(['audio/ja.m3u8']);
  });

  it('records none when the default rendition has no URI: its audio is in the video segments', () => {
    expect(chosen(['NAME="Main",LANGUAGE="en",DEFAULT=YES', japanese], 'default')).toEqual([]);
  });

  it('records every rendition with a URI with `all`, in the order listed, each once', () => {
    expect(chosen(['NAME="Main",LANGUAGE="en",DEFAULT=YES', japanese, english, 'NAME="Again",LANGUAGE="en",URI="audio/en.m3u8"'], 'all')).toEqual([
      'audio/ja.m3u8',
      'audio/en.m3u8',
    ]);
  });

  it('records none for a variant without an audio group (muxed audio, as today)', () => {
    const playlist = parsePlaylist('#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1000\nv.m3u8\n', MASTER_URL);
    const variant = playlist.kind === 'master' ? playlist.variants[0] : undefined;
    expect(variant?.audio).toEqual([]);
    expect(chooseAudio(variant?.audio ?? [], 'all')).toEqual([]);
  });

  it('keeps the language and name of what it records', () => {
    const renditions: AudioRendition[] = [{ url: 'https://a/en.m3u8', language: 'en', name: 'English', isDefault: true, autoselect: true }];
    expect(chooseAudio(renditions, 'default')).toEqual([{ url: 'https://a/en.m3u8', language: 'en', name: 'English' }]);
  });
});

/** A lane's media playlist listing media sequences `from` to `to`, one second each. */
function lane(name: string, from: number, to: number, options: { ended?: boolean; ad?: number } = {}): LanePlaylist {
  const url = `https://cdn.example/${name}.m3u8`;
  const lines = ['#EXTM3U', '#EXT-X-TARGETDURATION:2', `#EXT-X-MEDIA-SEQUENCE:${from}`];
  for (let s = from; s <= to; s++) lines.push(`#EXTINF:${s === options.ad ? '2.0,Amazon|1' : '2.0,'}`, `${name}-${s}.ts`);
  if (options.ended) lines.push('#EXT-X-ENDLIST');
  const playlist = parsePlaylist(lines.join('\n'), url);
  if (playlist.kind !== 'media') throw new Error('not a media playlist');
  return { url, playlist };
}

describe("a capture's listing of its lanes", () => {
  it('pairs the lanes by media sequence, video first, only as far as every lane lists, the video alone carrying seconds', () => {
    const listing = laneListing([lane('video', 10, 13), lane('en', 9, 12), lane('ja', 10, 14)]);
    expect(listing.segments.map((s) => [s.sequence, s.url.replace('https://cdn.example/', ''), s.durationSeconds])).toEqual([
      [30, 'video-10.ts', 2],
      [31, 'en-10.ts', 0],
      [32, 'ja-10.ts', 0],
      [33, 'video-11.ts', 2],
      [34, 'en-11.ts', 0],
      [35, 'ja-11.ts', 0],
      [36, 'video-12.ts', 2],
      [37, 'en-12.ts', 0],
      [38, 'ja-12.ts', 0],
    ]);
    // where each is listed, for its retries and its AES-128 IV
    expect(listing.segments[4]?.listed).toEqual({ playlistUrl: 'https://cdn.example/en.m3u8', sequence: 11 });
  });

  it('has ended only once every lane has, and marks a whole slot an ad when its video is one', () => {
    expect(laneListing([lane('video', 0, 1, { ended: true }), lane('en', 0, 1)]).ended).toBe(false);
    const listing = laneListing([lane('video', 0, 1, { ended: true, ad: 1 }), lane('en', 0, 1, { ended: true })]);
    expect(listing.ended).toBe(true);
    expect(listing.segments.map((s) => s.ad)).toEqual([false, false, true, true]);
  });

  it('leaves out before recording a rendition whose numbering does not meet the video’s', () => {
    const [video, en, ja] = [lane('video', 100, 105), lane('en', 100, 105), lane('ja', 0, 5)];
    const lanes = [en, ja].map((l) => ({ url: l.url, language: null, name: l.url }));
    expect(pairedRenditions(video.playlist, [en, ja], lanes).map((l) => l.url)).toEqual([en.url]);
  });
});

describe("a lane capture's tracks at finalize", () => {
  it("reads each lane's segments one after another, whichever parts they are in", () => {
    const segments = [
      { sequence: 20, part: 1, endOffset: 100, durationSeconds: 2 },
      { sequence: 21, part: 1, endOffset: 130, durationSeconds: 0 },
      { sequence: 22, part: 2, endOffset: 90, durationSeconds: 2 },
      { sequence: 23, part: 2, endOffset: 120, durationSeconds: 0 },
    ];
    expect(laneSpans(segments, 2)).toEqual([
      [
        { part: 1, startOffset: 0, endOffset: 100 },
        { part: 2, startOffset: 0, endOffset: 90 },
      ],
      [
        { part: 1, startOffset: 100, endOffset: 130 },
        { part: 2, startOffset: 90, endOffset: 120 },
      ],
    ]);
  });

  it("muxes the video's streams, then each audio track's audio tagged with its language", () => {
    const args = ffmpegArgs.remux(['v.txt', 'en.txt', 'x.txt'], 'out.mp4', { protocols: 'file', faststart: true, audioLanguages: ['eng', null] });
    const maps = args.flatMap((arg, i) => (arg === '-map' || arg.startsWith('-metadata') ? [`${arg} ${args[i + 1]}`] : []));
    expect(maps).toEqual(['-map 0:v', '-map 1:a', '-map 2:a', '-map 0:a?', '-metadata:s:a:0 language=eng']);
  });

  it("names a rendition's language as an MP4 track does: ISO 639-2", () => {
    expect(['en', 'ja', 'pt-BR', 'ZH-Hant', 'deu', 'und', 'x-klingon', '', null].map(mp4Language)).toEqual([
      'eng',
      'jpn',
      'por',
      'zho',
      'deu',
      'und',
      null,
      null,
      null,
    ]);
  });
});
