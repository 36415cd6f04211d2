import { chmod, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createYouTubeChannelResolver } from '../../src/adapters/follows/youtube-channel-resolver.js';
import { createYouTubeTabsSignal } from '../../src/adapters/follows/youtube-tabs-signal.js';
import { createYouTubeChatSource } from '../../src/adapters/sources/youtube-chat-source.js';
import { runYtDlp } from '../../src/adapters/ytdlp/run-ytdlp.js';
import { ytdlpProgram } from '../../src/adapters/ytdlp/ytdlp-program.js';
import { createYtDlp, troubleOf } from '../../src/adapters/ytdlp/ytdlp-video.js';
import type { Follow } from '../../src/core/follows/follow.js';
import { YTDLP_STAND_IN } from '../support/app.js';

// Which yt-dlp runs get the cookies (decision 0089), as the yt-dlp STAND-IN's log of each run's
// arguments shows: none for a public stream, a second run with them for one YouTube refuses without,
// the first for one known to be members-only; and what a failed run says.

const MEMBER_COOKIE = '.youtube.com\tTRUE\t/\tTRUE\t1900000000\tSID\tmember-session';
const CHANNEL = 'UCkura0000000000000000aa';
let dir: string;
let calls: string;
let cookies: string;
const previousState = process.env.YTDLP_STAND_IN_STATE;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'kura-ytdlp-cookies-'));
  calls = path.join(dir, 'calls.log');
  cookies = path.join(dir, 'cookies.txt');
  await writeFile(cookies, `# Netscape HTTP Cookie File\n${MEMBER_COOKIE}\n`);
  await chmod(cookies, 0o600);
  const state = {
    videos: {
      kPublic0001: { liveStatus: 'is_live', releaseTimestamp: 1_800_000_000, hlsUrl: 'https://example.test/a.m3u8' },
      kMembers001: { liveStatus: 'is_live', releaseTimestamp: 1_800_000_000, membersOnly: true, hlsUrl: 'https://example.test/m.m3u8', chat: { everyMs: 200 } },
      kLimited001: { liveStatus: 'is_live', error: 'Unable to download API page: HTTP Error 429: Too Many Requests' },
      kPrivate001: { liveStatus: 'is_live', error: "Private video. Sign in if you've been granted access to this video" },
    },
    channels: { [CHANNEL]: { handle: '@kura', name: 'Kura', streams: ['kPublic0001', 'kMembers001'] } },
    memberCookie: MEMBER_COOKIE,
    calls,
  };
  process.env.YTDLP_STAND_IN_STATE = path.join(dir, 'state.json');
  await writeFile(process.env.YTDLP_STAND_IN_STATE, JSON.stringify(state));
});
afterAll(() => {
  process.env.YTDLP_STAND_IN_STATE = previousState;
});

/** The arguments of each run since `before` runs were logged. */
const runsSince = async (before: number): Promise<string[][]> =>
  (await readFile(calls, 'utf8').catch(() => ''))
    .trim()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as string[])
    .slice(before);
const runCount = async () => (await runsSince(0)).length;
const url = (id: string) => `https://www.youtube.com/watch?v=${id}`;
const member = () => ytdlpProgram(YTDLP_STAND_IN, { cookiesFile: cookies });

describe('cookies only where needed', () => {
  it('a public stream is looked at without cookies, though they are set, and every run ignores config files', async () => {
    const before = await runCount();
    const answer = await createYtDlp(member())('https://www.youtube.com/watch?v=kPublic0001');
    expect(answer).toMatchObject({ withCookies: false, json: { id: 'kPublic0001', live_status: 'is_live' } });
    const runs = await runsSince(before);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toContain('--ignore-config');
    expect(runs[0]).not.toContain('--cookies');
    expect(runs[0]).not.toContain('--no-warnings');
  });

  it('a members-only stream refused without cookies is run once more with them, and answers with its formats', async () => {
    const before = await runCount();
    const answer = await createYtDlp(member())(url('kMembers001'), { fromStart: false });
    expect(answer.withCookies).toBe(true);
    expect((answer.json as { formats: unknown[] }).formats.length).toBeGreaterThan(0);
    const runs = await runsSince(before);
    expect(runs.map((args) => args.includes('--cookies'))).toEqual([false, true]);
    expect(runs.every((args) => args[0] === '--ignore-config')).toBe(true);
  });

  it('without cookies set, the refused answer is the answer, with its reason among the warnings', async () => {
    const before = await runCount();
    const answer = await createYtDlp(ytdlpProgram(YTDLP_STAND_IN))(url('kMembers001'), { fromStart: false });
    expect(answer).toMatchObject({ withCookies: false, json: { availability: 'subscriber_only', formats: [] } });
    expect(answer.warnings).toContain('Join this channel to get access to members-only content like this video, and other exclusive perks.');
    expect(await runsSince(before)).toHaveLength(1);
  });

  it('a stream the caller knows is members-only runs with the cookies from the first', async () => {
    const before = await runCount();
    const answer = await createYtDlp(member())(url('kMembers001'), { fromStart: false, membersOnly: true });
    expect(answer.withCookies).toBe(true);
    expect((await runsSince(before)).map((args) => args.includes('--cookies'))).toEqual([true]);
  });

  it('the chat of a members-only stream, refused without cookies, is followed with them', async () => {
    const before = await runCount();
    const stop = new AbortController();
    const messages: unknown[] = [];
    const chat = createYouTubeChatSource({ ytdlp: member(), dir: path.join(dir, 'chats') });
    const end = await chat.follow(
      url('kMembers001'),
      (message) => {
        messages.push(message);
        stop.abort();
      },
      stop.signal,
    );
    expect(end).toBe('ended');
    expect(messages.length).toBeGreaterThan(0);
    const runs = await runsSince(before);
    expect(runs.map((args) => args.includes('--cookies'))).toEqual([false, true]);
    expect(runs.every((args) => args.includes('--ignore-config') && args.includes('--write-subs'))).toBe(true);
  });

  it("the channel's tabs and its resolver run without cookies", async () => {
    const before = await runCount();
    const follow = { kind: 'youtube_channel', channelId: CHANNEL, url: `https://www.youtube.com/channel/${CHANNEL}` } as unknown as Follow;
    expect((await createYouTubeTabsSignal({ ytdlp: member() }).look(follow)).map((c) => c.membersOnly)).toEqual([null, true]);
    expect(await createYouTubeChannelResolver({ ytdlp: member() }).resolveYouTube('@kura')).toEqual({ channelId: CHANNEL, channelName: 'Kura' });
    const runs = await runsSince(before);
    expect(runs).toHaveLength(2);
    expect(runs.some((args) => args.includes('--cookies'))).toBe(false);
  });
});

describe('a failed yt-dlp run', () => {
  it('says what kind of trouble it met, and is not tried again with cookies unless they may help', async () => {
    const before = await runCount();
    const look = createYtDlp(member());
    const limited = await look(url('kLimited001')).catch((error: unknown) => error);
    expect(troubleOf(limited)).toBe('rate_limited');
    expect((limited as Error).message).toBe('Unable to download API page: HTTP Error 429: Too Many Requests');
    expect(troubleOf(await look(url('kPrivate001')).catch((error: unknown) => error))).toBe('gone');
    expect((await runsSince(before)).some((args) => args.includes('--cookies'))).toBe(false);
  });

  it('is `missing` when yt-dlp is not installed, and a gone channel says so on the follow', async () => {
    const missing = await runYtDlp(ytdlpProgram(path.join(dir, 'no-yt-dlp')), ['-J', '--', url('kPublic0001')]).catch((error: unknown) => error);
    expect(troubleOf(missing)).toBe('missing');
    const gone = { kind: 'youtube_channel', channelId: 'UCgone00000000000000000a', url: 'x' } as unknown as Follow;
    const error = await createYouTubeTabsSignal({ ytdlp: member() })
      .look(gone)
      .catch((e: unknown) => e);
    expect(troubleOf(error)).toBe('gone');
    expect((error as Error).message).toBe('This channel does not exist.');
  });
});
