import { describe, expect, it } from 'vitest';
import { publicErrorWords, redactUrl, redactUrlsIn } from '../../src/core/sources/public-url.js';

describe('a URL as the public sees it', () => {
  it('loses its user name and password and keeps scheme, host, port and path', () => {
    expect(redactUrl('https://user:pa55word@streams.example:8443/live/a.m3u8')).toBe('https://streams.example:8443/live/a.m3u8');
    expect(redactUrl('https://:pa55word@streams.example/a.m3u8')).toBe('https://streams.example/a.m3u8');
  });

  it('masks every query value, a query part without a value whole, and a fragment', () => {
    expect(redactUrl('https://streams.example/a.m3u8?token=s3cr3t&quality=720p')).toBe('https://streams.example/a.m3u8?token=***&quality=***');
    expect(redactUrl('https://streams.example/a.m3u8?s3cr3t&x=')).toBe('https://streams.example/a.m3u8?***&x=***');
    expect(redactUrl('https://streams.example/a.m3u8#key=s3cr3t')).toBe('https://streams.example/a.m3u8#***');
    // but for Kura's own mark of which broadcast of a channel a record is (decision 0133)
    expect(redactUrl('https://www.twitch.tv/alice#kura-broadcast=41234567890')).toBe('https://www.twitch.tv/alice#kura-broadcast=41234567890');
    expect(redactUrl('https://www.twitch.tv/alice?token=t#kura-broadcast=4')).toBe('https://www.twitch.tv/alice?token=***#kura-broadcast=4');
  });

  it("keeps YouTube's video, playlist and start time, masking anything else", () => {
    expect(redactUrl('https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42&si=tracking123')).toBe('https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42&si=***');
    expect(redactUrl('https://youtu.be/dQw4w9WgXcQ?list=PL123&si=abc')).toBe('https://youtu.be/dQw4w9WgXcQ?list=PL123&si=***');
    expect(redactUrl('https://streams.example/watch?v=s3cr3t')).toBe('https://streams.example/watch?v=***');
  });

  it('comes back unchanged when it has nothing to hide, whatever its form', () => {
    expect(redactUrl('https://www.youtube.com/channel/UCabcdefghijklmnopqrstuv')).toBe('https://www.youtube.com/channel/UCabcdefghijklmnopqrstuv');
    expect(redactUrl('holodex:org/Hololive')).toBe('holodex:org/Hololive');
  });

  it('is cut before its query and after its user name when it does not parse', () => {
    expect(redactUrl('http://user:pa55word@[bad/x.m3u8?token=s3cr3t')).toBe('http://[bad/x.m3u8');
  });

  it('is redacted inside free text, as is every other URL there', () => {
    expect(redactUrlsIn('https://user:pa55word@a.example/x.m3u8?token=s3cr3t: HTTP 403 (from https://b.example/y?k=v)')).toBe(
      'https://a.example/x.m3u8?token=***: HTTP 403 (from https://b.example/y?k=***)',
    );
  });

  it("of an error: its publicMessage when it carries one, else its message's URLs redacted", () => {
    const refused = Object.assign(new Error('intranet.example resolves to a non-public address: 10.1.2.3 is a private address'), {
      publicMessage: 'intranet.example: refused: not a public address',
    });
    expect(publicErrorWords(refused)).toBe('intranet.example: refused: not a public address');
    expect(publicErrorWords(new Error('https://u:pa55word@a.example/x.m3u8: HTTP 500'))).toBe('https://a.example/x.m3u8: HTTP 500');
  });
});
