import { describe, expect, it } from 'vitest';
import type { Gap, RecordedSegment } from '../../src/core/capture/capture.js';
import { buildLivePlaylist } from '../../src/core/playback/live-playlist.js';
import { type PartFormat } from '../../src/core/playback/part-format.js';
import { recordedFragments } from '../../src/core/capture/fragment-tracks.js';
import { buildMultivariantPlaylist, peakBandwidth, trackGaps, trackPlaylistInput } from '../../src/core/playback/live-tracks.js';

// A capture of fragments (2-s fragments): video fragment n is sequence 2n, audio fragment n 2n + 1.
// Part 1: fragments 0, 1 and 3 (2 lost on both tracks); part 2 (a resumed capture): fragment 4's
// video (its audio lost) and fragment 5.
const VIDEO = 1000;
const AUDIO = 100;
function capture(): RecordedSegment[] {
  const segments: RecordedSegment[] = [];
  const ends = new Map<number, number>();
  const add = (sequence: number, part: number) => {
    const end = (ends.get(part) ?? 0) + (sequence % 2 === 0 ? VIDEO : AUDIO);
    ends.set(part, end);
    segments.push({ sequence, part, endOffset: end, durationSeconds: sequence % 2 === 0 ? 2 : 0 });
  };
  for (const sequence of [0, 1, 2, 3, 6, 7]) add(sequence, 1);
  for (const sequence of [8, 10, 11]) add(sequence, 2);
  return segments;
}
const gaps: Gap[] = [
  { firstSequence: 4, lastSequence: 5, seconds: 2, reason: 'lost at the source' },
  { firstSequence: 9, lastSequence: 9, seconds: 0, reason: 'lost at the source' },
];
const fmp4 = (initBytes: number) => new Map<number, PartFormat>([1, 2].map((part) => [part, { kind: 'fmp4', initBytes }]));

describe('the live playlists of a capture of fragments', () => {
  it('finds each fragment’s number, track and bytes among the capture’s segments', () => {
    expect(recordedFragments(capture()).slice(0, 3)).toEqual([
      { n: 0, track: 'video', part: 1, startOffset: 0, endOffset: 1000 },
      { n: 0, track: 'audio', part: 1, startOffset: 1000, endOffset: 1100 },
      { n: 1, track: 'video', part: 1, startOffset: 1100, endOffset: 2100 },
    ]);
  });

  it('counts a gap spanning both sequences of a fragment for both tracks, and one of one sequence for its track only', () => {
    expect(trackGaps(gaps, 'video', 2)).toEqual([{ firstSequence: 2, lastSequence: 2, seconds: 2, reason: 'lost at the source' }]);
    expect(trackGaps(gaps, 'audio', 2)).toEqual([
      { firstSequence: 2, lastSequence: 2, seconds: 2, reason: 'lost at the source' },
      { firstSequence: 4, lastSequence: 4, seconds: 2, reason: 'lost at the source' },
    ]);
    expect(trackGaps([{ firstSequence: 3, lastSequence: 8, seconds: 6, reason: 'x' }], 'video', 2)).toEqual([
      { firstSequence: 2, lastSequence: 4, seconds: 6, reason: 'x' },
    ]);
  });

  it('lists the video’s fragments from fragment 0, each behind its track’s section in its part, a gap for the lost one, a discontinuity at the new part, ENDLIST at the end', () => {
    const fragments = recordedFragments(capture());
    const input = trackPlaylistInput({ track: 'video', fragments, gaps, formats: fmp4(700), fragmentSeconds: 2, ended: true });
    expect(buildLivePlaylist(input)).toBe(
      [
        '#EXTM3U',
        '#EXT-X-VERSION:6',
        '#EXT-X-PLAYLIST-TYPE:EVENT',
        '#EXT-X-TARGETDURATION:2',
        '#EXT-X-SERVER-CONTROL:CAN-SKIP-UNTIL=12.0',
        '#EXT-X-MEDIA-SEQUENCE:0',
        '#EXT-X-MAP:URI="1/init-video.mp4"',
        '#EXTINF:2.000000,',
        '1/0.m4s',
        '#EXTINF:2.000000,',
        '1/2.m4s',
        '#EXT-X-GAP',
        '#EXTINF:2.000000,',
        '1/4.m4s',
        '#EXTINF:2.000000,',
        '1/6.m4s',
        '#EXT-X-DISCONTINUITY',
        '#EXT-X-MAP:URI="2/init-video.mp4"',
        '#EXTINF:2.000000,',
        '2/8.m4s',
        '#EXTINF:2.000000,',
        '2/10.m4s',
        '#EXT-X-ENDLIST',
        '',
      ].join('\n'),
    );
  });

  it('lists the audio’s fragments as long as the video’s (the capture gives them no seconds), numbered the same, with its own gaps', () => {
    const fragments = recordedFragments(capture());
    const input = trackPlaylistInput({ track: 'audio', fragments, gaps, formats: fmp4(600), fragmentSeconds: 2, ended: false });
    const text = buildLivePlaylist(input);
    expect(text).toContain('#EXT-X-MEDIA-SEQUENCE:0\n');
    expect(text.split('\n').slice(6)).toEqual([
      '#EXT-X-MAP:URI="1/init-audio.mp4"',
      '#EXTINF:2.000000,',
      '1/1.m4s',
      '#EXTINF:2.000000,',
      '1/3.m4s',
      '#EXT-X-GAP',
      '#EXTINF:2.000000,',
      '1/5.m4s',
      '#EXTINF:2.000000,',
      '1/7.m4s',
      '#EXT-X-GAP', // fragment 4, lost, in the part it falls in
      '#EXTINF:2.000000,',
      '1/9.m4s',
      '#EXT-X-DISCONTINUITY',
      '#EXT-X-MAP:URI="2/init-audio.mp4"',
      '#EXTINF:2.000000,',
      '2/11.m4s',
      '',
    ]);
  });

  it('answers a delta update with the track’s last fragments, naming the section they play behind again', () => {
    const segments: RecordedSegment[] = Array.from({ length: 40 }, (_, sequence) => ({
      sequence,
      part: 1,
      endOffset: (sequence + 1) * 1000,
      durationSeconds: sequence % 2 === 0 ? 2 : 0,
    }));
    const input = trackPlaylistInput({
      track: 'video',
      fragments: recordedFragments(segments),
      gaps: [],
      formats: fmp4(700),
      fragmentSeconds: 2,
      ended: false,
      delta: true,
    });
    const text = buildLivePlaylist(input);
    expect(text).toContain('#EXT-X-SKIP:SKIPPED-SEGMENTS=14\n#EXT-X-MAP:URI="1/init-video.mp4"\n#EXTINF:2.000000,\n1/28.m4s');
    expect(text.split('\n').filter((line) => line.endsWith('.m4s'))).toHaveLength(6);
  });

  it('makes live.m3u8 a multivariant playlist: the video with the audio as its default rendition, at the peak bit rate of both', () => {
    const fragments = recordedFragments(capture());
    const bandwidth = peakBandwidth(fragments, 2);
    expect(bandwidth).toBe(((VIDEO + AUDIO) * 8) / 2);
    expect(buildMultivariantPlaylist({ bandwidth })).toBe(
      [
        '#EXTM3U',
        '#EXT-X-INDEPENDENT-SEGMENTS',
        '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio",NAME="audio",DEFAULT=YES,AUTOSELECT=YES,URI="live/audio.m3u8"',
        '#EXT-X-STREAM-INF:BANDWIDTH=4400,AUDIO="audio"',
        'live/video.m3u8',
        '',
      ].join('\n'),
    );
    expect(buildMultivariantPlaylist({ bandwidth, codecs: 'vp9,opus' })).toContain('#EXT-X-STREAM-INF:BANDWIDTH=4400,CODECS="vp9,opus",AUDIO="audio"\n');
  });

  it('names a WebM track’s section and fragments .webm, for the page’s own player (HLS cannot carry WebM)', () => {
    const webm = new Map<number, PartFormat>([1, 2].map((part) => [part, { kind: 'webm', initBytes: 400 }]));
    const input = trackPlaylistInput({ track: 'video', fragments: recordedFragments(capture()), gaps, formats: webm, fragmentSeconds: 2, ended: false });
    const lines = buildLivePlaylist(input).split('\n');
    expect(lines.slice(6, 9)).toEqual(['#EXT-X-MAP:URI="1/init-video.webm"', '#EXTINF:2.000000,', '1/0.webm']);
    expect(lines).toContain('#EXT-X-MAP:URI="2/init-video.webm"');
  });
});
