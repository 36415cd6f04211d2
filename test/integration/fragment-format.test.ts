import { stat } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { readPartFormat } from '../../src/core/playback/part-format.js';
import { fragmentBytes, makeFragments } from '../support/youtube-fragments.js';

// A fragment as the googlevideo STAND-IN answers it (the muxer's initialization segment, then the
// fragment's media, as YouTube sends it): Kura splits it where a player needs it split, so the
// live playlists can name the section once and each fragment's media after it.
describe.each([
  { codecs: 'h264', kind: 'fmp4' },
  { codecs: 'vp9', kind: 'webm' },
] as const)('the format of a $codecs fragment', ({ codecs, kind }) => {
  it(`is ${kind}, its initialization section exactly the muxer’s, for video and audio`, async () => {
    const material = await makeFragments({ codecs, seconds: 4, targetSeconds: 2, fps: 10 });
    for (const representation of material.representations) {
      const bytes = await fragmentBytes(representation, 1);
      const format = await readPartFormat(async (offset, length) => bytes.subarray(offset, offset + length), bytes.length);
      expect(format).toEqual({ kind, initBytes: (await stat(representation.initPath)).size });
    }
  });

  it('is read as one piece when its first bytes are cut short (no section to split off)', async () => {
    const material = await makeFragments({ codecs, seconds: 4, targetSeconds: 2, fps: 10 });
    const bytes = (await fragmentBytes(material.representations[2] as (typeof material.representations)[number], 0)).subarray(0, 40);
    expect(await readPartFormat(async (offset, length) => bytes.subarray(offset, offset + length), bytes.length)).toEqual({ kind: 'mpegts' });
  });
});
