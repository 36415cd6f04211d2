import { describe, expect, it } from 'vitest';
import { playlistExpiry } from '../../src/adapters/sources/signed-url.js';

describe('reading when a signed playlist URL expires', () => {
  it('reads googlevideo’s /expire/N/ path segment and an expire=N query', () => {
    expect(playlistExpiry('https://manifest.googlevideo.com/api/manifest/hls_playlist/expire/1795000000/ei/x/itag/96/index.m3u8')).toEqual(
      new Date(1795000000 * 1000),
    );
    expect(playlistExpiry('https://cdn.example/live.m3u8?token=a&expire=1795000123')).toEqual(new Date(1795000123 * 1000));
  });

  it('says nothing for URLs without an expiry, or with a number that is no Unix time', () => {
    expect(playlistExpiry('https://cdn.example/live/index.m3u8')).toBeNull();
    expect(playlistExpiry('https://cdn.example/expire/12/index.m3u8')).toBeNull();
    expect(playlistExpiry('https://cdn.example/x.m3u8?noexpire=1795000123')).toBeNull();
  });
});
