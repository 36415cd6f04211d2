import { describe, expect, it } from 'vitest';
import type { ByteSource } from '../../src/core/archive/ports.js';
import { fragmentOf, sequenceOf, trackOf, trackSource, trackSpans } from '../../src/core/capture/fragment-tracks.js';

/** A part whose byte i is `label` followed by i, as text: what a read returns shows where it came from. */
function part(bytes: string): ByteSource {
  const data = Buffer.from(bytes);
  return {
    bytes: data.length,
    async *read({ start, end }) {
      yield data.subarray(start, end + 1);
    },
  };
}
async function text(source: ByteSource, start = 0, end = source.bytes - 1): Promise<string> {
  let out = '';
  for await (const chunk of source.read({ start, end })) out += Buffer.from(chunk).toString();
  return out;
}

describe('the tracks of a capture of fragments', () => {
  it('numbers video fragment n as sequence 2n and its audio as 2n + 1', () => {
    expect([sequenceOf(0, 'video'), sequenceOf(0, 'audio'), sequenceOf(7, 'video'), sequenceOf(7, 'audio')]).toEqual([0, 1, 14, 15]);
    expect([fragmentOf(14), fragmentOf(15), trackOf(14), trackOf(15)]).toEqual([7, 7, 'video', 'audio']);
  });

  it('reads each track as its fragments one after another, across parts and around a lost fragment', async () => {
    // part 1: V0 A0 V1 (audio fragment 1 lost); the capture went on in part 2: V2 A2
    const parts = new Map([
      [1, part('V0V0A0V1V1')],
      [2, part('V2V2A2A2')],
    ]);
    const segments = [
      { sequence: 0, part: 1, endOffset: 4, durationSeconds: 5 },
      { sequence: 1, part: 1, endOffset: 6, durationSeconds: 0 },
      { sequence: 2, part: 1, endOffset: 10, durationSeconds: 5 },
      { sequence: 4, part: 2, endOffset: 4, durationSeconds: 5 },
      { sequence: 5, part: 2, endOffset: 8, durationSeconds: 0 },
    ];
    const spans = trackSpans(segments);
    const video = trackSource(spans.video, parts);
    const audio = trackSource(spans.audio, parts);
    expect(await text(video)).toBe('V0V0V1V1V2V2');
    expect(await text(audio)).toBe('A0A2A2');
    expect([video.bytes, audio.bytes]).toEqual([12, 6]);
    // a range across two fragments in two parts
    expect(await text(video, 6, 9)).toBe('V1V2');
    expect(await text(audio, 1, 2)).toBe('0A');
  });

  it('reads a track fragment by fragment with the other track’s bytes between them passed over, in few reads of the part, whatever the range and however the part’s bytes come', async () => {
    // one part of 60 fragments: video of 40–80 bytes, audio of 5–9, interleaved
    let seed = 7;
    const random = (below: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % below;
    const segments: Array<{ sequence: number; part: number; endOffset: number; durationSeconds: number }> = [];
    let end = 0;
    for (let n = 0; n < 60; n++) {
      for (const track of ['video', 'audio'] as const) {
        end += track === 'video' ? 40 + random(41) : 5 + random(5);
        segments.push({ sequence: sequenceOf(n, track), part: 1, endOffset: end, durationSeconds: track === 'video' ? 2 : 0 });
      }
    }
    const bytes = Buffer.from(Array.from({ length: end }, (_, i) => i % 251));
    let reads = 0;
    // a part whose reads come three bytes at a time
    const part: ByteSource = {
      bytes: end,
      async *read({ start, end: last }) {
        reads++;
        for (let at = start; at <= last; at += 3) yield bytes.subarray(at, Math.min(last + 1, at + 3));
      },
    };
    const spans = trackSpans(segments);
    for (const track of ['video', 'audio'] as const) {
      const whole = Buffer.concat(spans[track].map((s) => bytes.subarray(s.startOffset, s.endOffset)));
      const source = trackSource(spans[track], new Map([[1, part]]));
      for (let i = 0; i < 200; i++) {
        const a = random(whole.length);
        const b = a + random(whole.length - a);
        const got: Buffer[] = [];
        for await (const chunk of source.read({ start: a, end: b })) got.push(Buffer.from(chunk));
        expect(Buffer.concat(got).equals(whole.subarray(a, b + 1)), `${track} ${a}-${b}`).toBe(true);
      }
    }
    // the whole video track in one read of the part (the audio between its fragments is small)
    reads = 0;
    for await (const chunk of trackSource(spans.video, new Map([[1, part]])).read({ start: 0, end: 100_000 })) expect(chunk.length).toBeGreaterThan(0);
    expect(reads).toBe(1);
  });
});
