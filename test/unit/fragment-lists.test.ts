import { describe, expect, it } from 'vitest';
import { fragmentListsDropped } from '../../src/adapters/ytdlp/fragment-lists.js';

// yt-dlp's -J of a post_live video lists every fragment of every format (about a kilobyte each):
// the runner drops those lists as the output arrives (decision 0089).
const postLive = {
  id: 'dQw4w9WgXcQ',
  live_status: 'post_live',
  formats: [0, 1].map((f) => ({
    format_id: String(140 + f),
    url: `https://rr1.example/videoplayback?itag=${140 + f}&x=a]b"c`,
    protocol: 'http_dash_segments',
    fragments: Array.from({ length: 50 }, (_, sq) => ({ url: `https://rr1.example/videoplayback?itag=${140 + f}&sq=${sq}&odd=]["\\`, fragment_count: 50 })),
    target_duration: 2,
  })),
  title: 'fragments: [ in a title ]',
};
const live = { id: 'x', formats: [{ format_id: '299', fragments: 'functools.partial(<bound method …>, [1, 2])', url: 'https://rr1.example/v' }] };

/** The output pushed through the filter in chunks of `size` characters. */
function filtered(value: object, size: number): string {
  const text = JSON.stringify(value, null, 1).replace(/\n\s*/g, ' ').replace(/" :/g, '":'); // as json.dumps separates: ", " and ": "
  const filter = fragmentListsDropped();
  let out = '';
  for (let i = 0; i < text.length; i += size) out += filter.push(text.slice(i, i + size));
  return out + filter.end();
}

describe('the fragment lists of yt-dlp output', () => {
  it('are dropped whatever the chunks, every other field kept as it was', () => {
    const expected = { ...postLive, formats: postLive.formats.map((f) => ({ ...f, fragments: [] })) };
    for (const size of [1, 3, 7, 64, 1000, 1_000_000]) expect(JSON.parse(filtered(postLive, size)), `chunks of ${size}`).toEqual(expected);
    expect(filtered(postLive, 1000).length).toBeLessThan(JSON.stringify(postLive).length / 10);
  });

  it('leave a live format’s fragments, which yt-dlp prints as a string, alone', () => {
    for (const size of [1, 5, 1000]) expect(JSON.parse(filtered(live, size))).toEqual(live);
  });
});
