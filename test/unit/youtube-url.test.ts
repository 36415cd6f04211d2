import { describe, expect, it } from 'vitest';
import { parseYouTubeUrl } from '../../src/adapters/sources/youtube-url.js';

const ID = 'dQw4w9WgXcQ';

describe('recognising YouTube URLs', () => {
  it.each([
    `https://www.youtube.com/watch?v=${ID}`,
    `https://youtube.com/watch?v=${ID}&t=42s&feature=share`,
    `http://m.youtube.com/watch?v=${ID}`,
    `https://music.youtube.com/watch?v=${ID}&list=RDAMVM${ID}`,
    `https://youtu.be/${ID}?si=abc`,
    `https://www.youtube.com/live/${ID}?feature=shared`,
    `https://www.youtube.com/embed/${ID}`,
    `https://www.youtube-nocookie.com/embed/${ID}`,
    `https://WWW.YOUTUBE.COM/watch?v=${ID}`,
  ])('takes %s as the video', (url) => {
    expect(parseYouTubeUrl(url)).toEqual({ kind: 'video', videoId: ID, canonicalUrl: `https://www.youtube.com/watch?v=${ID}` });
  });

  it.each([
    [`https://www.youtube.com/shorts/${ID}`, /Shorts are not livestreams/],
    ['https://www.youtube.com/playlist?list=PL590L5WQmH8fJ54F369BLDSqIwcs-TCfs', /a playlist/],
    ['https://www.youtube.com/channel/UC4R8DWoMoI7CAwX8_LjQHig', /a channel/],
    ['https://www.youtube.com/@LofiGirl', /a channel/],
    ['https://www.youtube.com/c/LofiGirl', /a channel/],
    ['https://www.youtube.com/watch?feature=share', /without a video id/],
    ['https://www.youtube.com/watch?v=short', /11 characters/],
    ['https://youtu.be/', /11 characters/],
    [`https://www.youtube.com/watch?v=${ID}x`, /11 characters/],
    ['https://www.youtube.com/feed/subscriptions', /not a YouTube video URL/],
  ])('rejects %s with a reason', (url, reason) => {
    const result = parseYouTubeUrl(url);
    expect(result.kind).toBe('rejected');
    expect(result.kind === 'rejected' && result.reason).toMatch(reason);
  });

  it.each(['https://cdn.example/live/index.m3u8', 'https://notyoutube.com/watch?v=dQw4w9WgXcQ', 'ftp://youtube.com/watch?v=dQw4w9WgXcQ', 'not a url'])(
    'leaves %s to other sources',
    (url) => expect(parseYouTubeUrl(url)).toEqual({ kind: 'not_youtube' }),
  );
});
