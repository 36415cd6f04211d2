import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/core/errors.js';
import { parseFollowTarget } from '../../src/core/follows/follow-target.js';

describe('what a follow URL names', () => {
  it('takes a Twitch channel’s page on any of Twitch’s hosts, its login in lower case', () => {
    for (const url of ['https://www.twitch.tv/Alice_99', 'https://twitch.tv/alice_99/', 'http://m.twitch.tv/ALICE_99?referrer=raid']) {
      expect(parseFollowTarget(url)).toEqual({ kind: 'twitch_channel', login: 'alice_99' });
    }
  });

  it('refuses a Twitch page that is not a channel’s, naming the form it takes', () => {
    for (const url of ['https://www.twitch.tv/', 'https://www.twitch.tv/alice/videos', 'https://www.twitch.tv/videos/123456', 'https://www.twitch.tv/al-ice']) {
      const refusal = (() => {
        try {
          parseFollowTarget(url);
          return null;
        } catch (error) {
          return error;
        }
      })();
      expect(refusal, url).toBeInstanceOf(AppError);
      expect((refusal as AppError).code).toBe('invalid_follow');
      expect((refusal as AppError).message).toContain('is not a Twitch channel: follow its page, https://www.twitch.tv/NAME.');
    }
  });

  it('still tells the other kinds apart', () => {
    expect(parseFollowTarget('@karaoke')).toEqual({ kind: 'youtube_channel', channel: '@karaoke' });
    expect(parseFollowTarget('https://live.example/hls/index.m3u8')).toMatchObject({ kind: 'hls_endpoint' });
    expect(() => parseFollowTarget('https://kick.com/alice')).toThrow('is neither a YouTube or Twitch channel nor an HLS playlist (.m3u8)');
  });
});
