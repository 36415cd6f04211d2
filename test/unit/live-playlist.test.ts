import { describe, expect, it } from 'vitest';
import type { Gap, RecordedSegment } from '../../src/core/capture/capture.js';
import { buildLivePlaylist } from '../../src/core/playback/live-playlist.js';
import { type PartFormat } from '../../src/core/playback/part-format.js';
import { readPartFormat } from '../../src/core/playback/part-format.js';

const segment = (sequence: number, part = 1, durationSeconds = 2): RecordedSegment => ({ sequence, part, endOffset: (sequence + 1) * 1000, durationSeconds });
const gap = (firstSequence: number, lastSequence: number, seconds: number): Gap => ({ firstSequence, lastSequence, seconds, reason: 'left the window' });
const ts = new Map<number, PartFormat>([
  [1, { kind: 'mpegts' }],
  [2, { kind: 'mpegts' }],
]);
const uris = (text: string) => text.split('\n').filter((line) => line.startsWith('live/'));
/** The playlist's lines after its header. */
const body = (text: string) => text.split('\n').slice(6, -1);

describe('the live playlist', () => {
  it('lists every segment from the first as an EVENT playlist numbered as the source numbered them, without ENDLIST while recording', () => {
    const text = buildLivePlaylist({ segments: [segment(40), segment(41, 1, 1.5)], gaps: [], formats: ts, ended: false });
    expect(text.split('\n').slice(0, 6)).toEqual([
      '#EXTM3U',
      '#EXT-X-VERSION:3',
      '#EXT-X-PLAYLIST-TYPE:EVENT',
      '#EXT-X-TARGETDURATION:2',
      '#EXT-X-SERVER-CONTROL:CAN-SKIP-UNTIL=12.0',
      '#EXT-X-MEDIA-SEQUENCE:40',
    ]);
    expect(body(text)).toEqual(['#EXTINF:2.000000,', 'live/1/40.ts', '#EXTINF:1.500000,', 'live/1/41.ts']);
    expect(text).not.toContain('#EXT-X-ENDLIST');
  });

  it('ends with ENDLIST once the capture has ended', () => {
    const text = buildLivePlaylist({ segments: [segment(0)], gaps: [], formats: ts, ended: true });
    expect(text.endsWith('#EXT-X-ENDLIST\n')).toBe(true);
  });

  it('starts each part after the first with a discontinuity', () => {
    const text = buildLivePlaylist({ segments: [segment(0), segment(1, 2), segment(2, 2)], gaps: [], formats: ts, ended: false });
    expect(body(text)).toEqual([
      '#EXTINF:2.000000,',
      'live/1/0.ts',
      '#EXT-X-DISCONTINUITY',
      '#EXTINF:2.000000,',
      'live/2/1.ts',
      '#EXTINF:2.000000,',
      'live/2/2.ts',
    ]);
  });

  it('lists lost sequences as GAP segments sharing the gap’s time, so the timeline and the numbering keep their length', () => {
    const text = buildLivePlaylist({ segments: [segment(0), segment(4)], gaps: [gap(1, 3, 4.5)], formats: ts, ended: false });
    expect(body(text)).toEqual([
      '#EXTINF:2.000000,',
      'live/1/0.ts',
      ...[1, 2, 3].flatMap((sequence) => ['#EXT-X-GAP', '#EXTINF:1.500000,', `live/1/${sequence}.ts`]),
      '#EXTINF:2.000000,',
      'live/1/4.ts',
    ]);
  });

  it('marks a jump in sequences that no gap accounts for with a discontinuity, never a silent jump', () => {
    const text = buildLivePlaylist({ segments: [segment(0), segment(7)], gaps: [], formats: ts, ended: false });
    expect(body(text)).toEqual(['#EXTINF:2.000000,', 'live/1/0.ts', '#EXT-X-DISCONTINUITY', '#EXTINF:2.000000,', 'live/1/7.ts']);
  });

  it('puts each fMP4 part’s initialization section in front of its first segment, once per part', () => {
    const formats = new Map<number, PartFormat>([
      [1, { kind: 'fmp4', initBytes: 700 }],
      [2, { kind: 'fmp4', initBytes: 720 }],
    ]);
    const text = buildLivePlaylist({ segments: [segment(0), segment(1), segment(2, 2)], gaps: [], formats, ended: true });
    expect(text).toContain('#EXT-X-VERSION:6');
    expect(body(text)).toEqual([
      '#EXT-X-MAP:URI="live/1/init.mp4"',
      '#EXTINF:2.000000,',
      'live/1/0.m4s',
      '#EXTINF:2.000000,',
      'live/1/1.m4s',
      '#EXT-X-DISCONTINUITY',
      '#EXT-X-MAP:URI="live/2/init.mp4"',
      '#EXTINF:2.000000,',
      'live/2/2.m4s',
      '#EXT-X-ENDLIST',
    ]);
  });

  it('answers a delta update with the segments older than six target durations skipped, and the timeline and init section they leave', () => {
    const formats = new Map<number, PartFormat>([
      [1, { kind: 'mpegts' }],
      [2, { kind: 'fmp4', initBytes: 700 }],
    ]);
    // 20 s of part 1, then 20 s of part 2: 2 s segments, so the boundary (12 s from the end) falls inside part 2
    const segments = [...Array.from({ length: 10 }, (_, i) => segment(i)), ...Array.from({ length: 10 }, (_, i) => segment(10 + i, 2))];
    const full = buildLivePlaylist({ segments, gaps: [], formats, ended: false });
    const delta = buildLivePlaylist({ segments, gaps: [], formats, ended: false, delta: true });
    expect(delta.split('\n').slice(0, 9)).toEqual([
      '#EXTM3U',
      '#EXT-X-VERSION:9',
      '#EXT-X-PLAYLIST-TYPE:EVENT',
      '#EXT-X-TARGETDURATION:2',
      '#EXT-X-SERVER-CONTROL:CAN-SKIP-UNTIL=12.0',
      '#EXT-X-MEDIA-SEQUENCE:0',
      '#EXT-X-DISCONTINUITY-SEQUENCE:1',
      '#EXT-X-SKIP:SKIPPED-SEGMENTS=14',
      '#EXT-X-MAP:URI="live/2/init.mp4"',
    ]);
    expect(uris(delta)).toEqual(uris(full).slice(14));
    // nothing to skip yet: the whole playlist
    const short = buildLivePlaylist({ segments: segments.slice(0, 5), gaps: [], formats, ended: false, delta: true });
    expect(short).toBe(buildLivePlaylist({ segments: segments.slice(0, 5), gaps: [], formats, ended: false }));
  });

  it('keeps the target duration at the longest segment, rounded up', () => {
    const text = buildLivePlaylist({ segments: [segment(0, 1, 2.002), segment(1, 1, 6.4)], gaps: [], formats: ts, ended: false });
    expect(text).toContain('#EXT-X-TARGETDURATION:7');
  });
});

/** Top-level MP4 boxes of the given types and declared sizes (content zeroed; at least a header each). */
function boxes(...list: Array<[string, number]>): Uint8Array {
  const bytes = new Uint8Array(list.reduce((sum, [, size]) => sum + Math.max(size, 8), 0));
  let at = 0;
  for (const [type, size] of list) {
    new DataView(bytes.buffer).setUint32(at, size);
    bytes.set(Buffer.from(type, 'latin1'), at + 4);
    at += Math.max(size, 8);
  }
  return bytes;
}
const reader = (bytes: Uint8Array) => async (offset: number, length: number) => bytes.subarray(offset, offset + length);

describe('the format of a part', () => {
  it('finds an fMP4 part’s initialization section: everything before its first segment’s first box', async () => {
    const part = boxes(['ftyp', 24], ['moov', 900], ['moof', 100], ['mdat', 5000]);
    expect(await readPartFormat(reader(part), part.length)).toEqual({ kind: 'fmp4', initBytes: 924 });
    const styp = boxes(['ftyp', 24], ['moov', 900], ['styp', 24], ['moof', 100], ['mdat', 500]);
    expect(await readPartFormat(reader(styp), styp.length)).toEqual({ kind: 'fmp4', initBytes: 924 });
  });

  it('takes MPEG-TS, and bytes that are not an MP4 file, as needing nothing in front', async () => {
    const tsPacket = new Uint8Array(188 * 4).fill(0xff);
    for (let i = 0; i < 4; i++) tsPacket[i * 188] = 0x47;
    expect(await readPartFormat(reader(tsPacket), tsPacket.length)).toEqual({ kind: 'mpegts' });
    // media segments without a moov in front (no initialization section recorded) are not fMP4 parts
    const bare = boxes(['moof', 100], ['mdat', 500]);
    expect(await readPartFormat(reader(bare), bare.length)).toEqual({ kind: 'mpegts' });
    // a box claiming less than its own header ends the walk rather than looping
    const broken = boxes(['ftyp', 24], ['moov', 4]);
    expect(await readPartFormat(reader(broken), broken.length)).toEqual({ kind: 'mpegts' });
  });
});
