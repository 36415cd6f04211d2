import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHolodexSignal } from '../../src/adapters/follows/holodex-signal.js';
import { createYouTubeChannelResolver } from '../../src/adapters/follows/youtube-channel-resolver.js';
import { createYouTubeFeedSignal } from '../../src/adapters/follows/youtube-feed-signal.js';
import { createYouTubeTabsSignal } from '../../src/adapters/follows/youtube-tabs-signal.js';
import { createFetcher } from '../../src/adapters/sources/http-fetch.js';
import { createYouTubeSource, createYtDlp } from '../../src/adapters/sources/youtube-source.js';
import { followOf as aFollow } from '../support/follows.js';
import type { Follow } from '../../src/core/follows/follow.js';
import { readPackageInfo } from '../../src/adapters/os/package-info.js';
import { YTDLP_STAND_IN, YTDLP_STAND_IN_PROGRAM } from '../support/app.js';
import { ytdlpProgram } from '../../src/adapters/ytdlp/ytdlp-program.js';

// The signals a YouTube channel or Holodex follow is watched through, against local stand-ins:
// a node:http server serving the feed fixture (test/fixtures/youtube/feed.xml, YouTube's Atom
// format) and Holodex answers, and the yt-dlp STAND-IN (state in $YTDLP_STAND_IN_STATE).
const CHANNEL = 'UCkuraFixtureChannel0001';
const FEED = readFileSync(path.join(readPackageInfo().root, 'test', 'fixtures', 'youtube', 'feed.xml'), 'utf8');
const HOLODEX_KEY = 'holodex-test-key';
const UPCOMING_AT = 1_795_003_200;
/** The line of a member's cookies.txt the stand-in opens members-only (and sign-in) videos for. */
const MEMBER_COOKIE = '.youtube.com\tTRUE\t/\tTRUE\t1900000000\tSID\tmember-session';
/** A Holodex v2 `/live` answer (its shape: a JSON array of videos, each with its channel). */
const HOLODEX_LIVE = [
  {
    id: 'hLive000001',
    title: '【Minecraft】 live now',
    type: 'stream',
    topic_id: 'minecraft',
    published_at: '2026-11-28T11:00:00.000Z',
    available_at: '2026-11-28T12:00:00.000Z',
    duration: 0,
    status: 'live',
    start_scheduled: '2026-11-28T12:00:00.000Z',
    start_actual: '2026-11-28T12:01:10.000Z',
    live_viewers: 20931,
    channel: { id: 'UCholodexChannelLive0001', name: 'Live Ch.', org: 'Hololive', type: 'vtuber', photo: 'https://yt3.ggpht.com/x', english_name: 'Live' },
  },
  {
    id: 'hUpcoming01',
    title: '【Members】 zatsudan',
    type: 'stream',
    topic_id: 'membersonly',
    published_at: '2026-11-28T10:00:00.000Z',
    available_at: '2026-11-29T09:00:00.000Z',
    duration: 0,
    status: 'upcoming',
    start_scheduled: '2026-11-29T09:00:00.000Z',
    live_viewers: 0,
    channel: {
      id: 'UCholodexChannelUpc00001',
      name: 'Upcoming Ch.',
      org: 'Hololive',
      type: 'vtuber',
      photo: 'https://yt3.ggpht.com/y',
      english_name: 'Upcoming',
    },
  },
];

let server: http.Server;
let base: string;
let stateFile: string;
let callsFile: string;
/** Cookies files: a member's, and a signed-in account's that is no member (or whose login expired). */
let memberCookies: string;
let otherCookies: string;
const holodexAsked: Array<{ url: string; key: string | undefined }> = [];

beforeAll(async () => {
  server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://local');
    if (url.pathname === '/feeds/videos.xml' && url.searchParams.get('channel_id') === CHANNEL) {
      return void response.writeHead(200, { 'content-type': 'text/xml; charset=UTF-8' }).end(FEED);
    }
    if (url.pathname === '/garbage/videos.xml') return void response.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Sorry<p></body>');
    if (url.pathname === '/not-atom/videos.xml') return void response.writeHead(200, { 'content-type': 'text/xml' }).end('<rss version="2.0"><channel/></rss>');
    if (url.pathname === '/holodex/api/v2/live') {
      const key = request.headers['x-apikey'] as string | undefined;
      holodexAsked.push({ url: request.url ?? '', key });
      if (key !== HOLODEX_KEY) return void response.writeHead(403, { 'content-type': 'application/json' }).end('{"message":"Invalid API key"}');
      return void response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(HOLODEX_LIVE));
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'kura-signals-'));
  stateFile = path.join(dir, 'state.json');
  callsFile = path.join(dir, 'calls.log');
  await writeFile(callsFile, '');
  memberCookies = path.join(dir, 'member-cookies.txt');
  otherCookies = path.join(dir, 'other-cookies.txt');
  await writeFile(memberCookies, `# Netscape HTTP Cookie File\n${MEMBER_COOKIE}\n`);
  await writeFile(otherCookies, '# Netscape HTTP Cookie File\n.youtube.com\tTRUE\t/\tTRUE\t1900000000\tSID\texpired-session\n');
  process.env.YTDLP_STAND_IN_STATE = stateFile;
  await youtubeSays({});
});
afterAll(async () => {
  delete process.env.YTDLP_STAND_IN_STATE;
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** What YouTube (the yt-dlp stand-in) knows of the fixture channel. */
function youtubeSays(extra: object) {
  const state = {
    videos: {
      kUpcoming01: { liveStatus: 'is_upcoming', releaseTimestamp: UPCOMING_AT, title: '【歌枠】Karaoke night 🎤 #43 & friends' },
      kLiveNow001: { liveStatus: 'is_live', title: '【Minecraft】 building the castle, part 7', hlsUrl: 'http://127.0.0.1:1/none.m3u8' },
      kMembers001: { liveStatus: 'is_upcoming', releaseTimestamp: UPCOMING_AT + 3600, title: '【Members only】 zatsudan with members', membersOnly: true },
      kPastLive01: { liveStatus: 'was_live', title: 'Last week’s stream' },
      kUpload0001: { liveStatus: 'not_live', title: 'Cover: "Blue Bird" (short version)' },
      kMembLive01: { liveStatus: 'is_live', title: '【Members only】 live now', membersOnly: true, hlsUrl: 'http://127.0.0.1:1/members.m3u8' },
      kAgeGated01: { liveStatus: 'is_live', title: 'Late-night horror game', signIn: true, hlsUrl: 'http://127.0.0.1:1/horror.m3u8' },
    },
    memberCookie: MEMBER_COOKIE,
    channels: { [CHANNEL]: { handle: '@kurafixture', name: 'Fixture Ch. 試験', streams: ['kUpcoming01', 'kLiveNow001', 'kMembers001', 'kPastLive01'] } },
    calls: callsFile,
    ...extra,
  };
  return writeFile(stateFile, JSON.stringify(state));
}

function followOf(fields: Partial<Follow>): Follow {
  return aFollow({
    kind: 'youtube_channel',
    url: `https://www.youtube.com/channel/${CHANNEL}`,
    channelId: CHANNEL,
    channelName: 'Fixture Ch. 試験',
    id: 'fixtureFollw',
    ...fields,
  });
}

const fetcher = createFetcher({ allowPrivate: true });
/** "Now" for the feed: three hours after its newest entry, eight and a half days after its oldest. */
const FEED_TIME = new Date('2026-11-29T12:00:00Z');
const feedAt = (dir: string) => createYouTubeFeedSignal({ fetcher, feedUrl: `${base}/${dir}/videos.xml`, clock: () => FEED_TIME });
const ytDlpRuns = async () =>
  (await readFile(callsFile, 'utf8'))
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as string[]);

describe('the YouTube feed signal', () => {
  it('lists the videos of the channel feed published in the last 7 days, titles decoded, with nothing known of their state', async () => {
    const signal = feedAt('feeds');
    expect(signal.name).toBe('feed');
    expect(signal.host(followOf({}))).toBe(new URL(base).host);
    const candidates = await signal.look(followOf({}));
    // kUpload0001 was published on the 20th: older than a week, it costs no yt-dlp look
    expect(candidates.map((c) => c.id)).toEqual(['kUpcoming01', 'kLiveNow001', 'kMembers001', 'kUpload0002']);
    expect(candidates[0]).toEqual({
      id: 'kUpcoming01',
      url: 'https://www.youtube.com/watch?v=kUpcoming01',
      title: '【歌枠】Karaoke night 🎤 #43 & friends',
      liveStatus: 'unknown',
      membersOnly: null,
      scheduledStart: null,
      publishedAt: new Date('2026-11-29T09:00:00Z'),
    });
  });

  it('keeps an entry published 7 days ago to the minute, and every entry when the window is wider', async () => {
    const wide = createYouTubeFeedSignal({ fetcher, feedUrl: `${base}/feeds/videos.xml`, recentDays: 30, clock: () => FEED_TIME });
    const all = await wide.look(followOf({}));
    expect(all.map((c) => c.id)).toEqual(['kUpcoming01', 'kLiveNow001', 'kMembers001', 'kUpload0002', 'kUpload0001']);
    expect(all[4]?.title).toBe('Cover: "Blue Bird" (short version)');
    const edge = createYouTubeFeedSignal({ fetcher, feedUrl: `${base}/feeds/videos.xml`, clock: () => new Date('2026-11-27T15:00:00Z') });
    expect((await edge.look(followOf({}))).map((c) => c.id)).toContain('kUpload0001');
  });

  it('fails with the reason when the feed answers 404, is not XML, or is not an Atom feed', async () => {
    await expect(feedAt('gone').look(followOf({}))).rejects.toThrow(/HTTP 404/);
    await expect(feedAt('garbage').look(followOf({}))).rejects.toThrow(/the YouTube feed is not XML/);
    await expect(feedAt('not-atom').look(followOf({}))).rejects.toThrow('the YouTube feed is not an Atom feed (no <feed> element)');
  });
});

describe('the YouTube tabs signal (yt-dlp stand-in)', () => {
  it('lists the upcoming and live streams of the streams tab, with their start and members-only', async () => {
    const signal = createYouTubeTabsSignal({ ytdlp: YTDLP_STAND_IN_PROGRAM });
    expect([signal.name, signal.host(followOf({}))]).toEqual(['tabs', 'www.youtube.com']);
    const candidates = await signal.look(followOf({}));
    expect(candidates).toEqual([
      expect.objectContaining({ id: 'kUpcoming01', liveStatus: 'upcoming', scheduledStart: new Date(UPCOMING_AT * 1000), membersOnly: null }),
      expect.objectContaining({ id: 'kLiveNow001', liveStatus: 'live', url: 'https://www.youtube.com/watch?v=kLiveNow001', membersOnly: null }),
      expect.objectContaining({ id: 'kMembers001', liveStatus: 'upcoming', title: '【Members only】 zatsudan with members', membersOnly: true }),
    ]);
    expect((await ytDlpRuns()).at(-1)).toEqual(expect.arrayContaining(['--flat-playlist', `https://www.youtube.com/channel/${CHANNEL}/streams`]));
  });

  it("fails with yt-dlp's reason when the channel is gone", async () => {
    const gone = followOf({ channelId: 'UCnoSuchChannel000000001' });
    await expect(createYouTubeTabsSignal({ ytdlp: YTDLP_STAND_IN_PROGRAM }).look(gone)).rejects.toThrow('This channel does not exist.');
  });
});

describe('resolving a YouTube channel (yt-dlp stand-in)', () => {
  const resolver = createYouTubeChannelResolver({ ytdlp: YTDLP_STAND_IN_PROGRAM });

  it('resolves a handle to the channel id and name in one yt-dlp run that lists no video', async () => {
    const before = (await ytDlpRuns()).length;
    expect(await resolver.resolveYouTube('@kurafixture')).toEqual({ channelId: CHANNEL, channelName: 'Fixture Ch. 試験' });
    const runs = (await ytDlpRuns()).slice(before);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toEqual(expect.arrayContaining(['--playlist-items', '0', 'https://www.youtube.com/@kurafixture']));
  });

  it('names a channel given by its id; refuses what is neither, and an unknown handle, with a reason', async () => {
    expect(await resolver.resolveYouTube(CHANNEL)).toEqual({ channelId: CHANNEL, channelName: 'Fixture Ch. 試験' });
    await expect(resolver.resolveYouTube('kurafixture')).rejects.toThrow('kurafixture is neither a YouTube channel id (UC…) nor a handle (@name)');
    await expect(resolver.resolveYouTube('@nobody')).rejects.toThrow('This channel does not exist.');
  });
});

describe('inspecting a members-only stream (yt-dlp stand-in)', () => {
  // yt-dlp runs with --ignore-no-formats-error and --no-warnings: YouTube's refusal is no error
  // then, only no formats and the video's `availability` (docs/research/youtube-live-contract.md §2.4)
  const withoutCookies = createYouTubeSource(createYtDlp(YTDLP_STAND_IN_PROGRAM));
  const withCookies = (file: () => string) => createYouTubeSource(createYtDlp(ytdlpProgram(YTDLP_STAND_IN, { cookiesFile: file() })));
  const url = (id: string) => `https://www.youtube.com/watch?v=${id}`;

  it('is rejected as members-only when no cookies are set, upcoming or live, with words that name the setting', async () => {
    const reason = "Members-only: Kura has no access to this stream (KURA_YTDLP_COOKIES is not set; a member's cookies are needed).";
    expect(await withoutCookies.inspect(url('kMembers001'))).toEqual({ kind: 'rejected', membersOnly: true, reason });
    expect(await withoutCookies.inspect(url('kMembLive01'))).toEqual({ kind: 'rejected', membersOnly: true, reason });
  });

  it('is rejected when live and the cookies do not open it; upcoming, it cannot be told yet and is accepted', async () => {
    const notMember = withCookies(() => otherCookies);
    expect(await notMember.inspect(url('kMembLive01'))).toEqual({
      kind: 'rejected',
      membersOnly: true,
      reason: "Members-only: the cookies no longer give access to this stream (KURA_YTDLP_COOKIES must be a current member's cookies).",
    });
    // an upcoming stream lists no formats to a member either
    expect(await notMember.inspect(url('kMembers001'))).toMatchObject({ kind: 'accepted', details: { membersOnly: true } });
  });

  it('once live, without access, ends the wait with the reason instead of waiting for formats', async () => {
    expect(await withCookies(() => otherCookies).check(url('kMembLive01'), null)).toMatchObject({
      state: 'no_access',
      reason: expect.stringMatching(/^Members-only: the cookies no longer give access to this stream \(KURA_YTDLP_COOKIES/),
      details: { title: '【Members only】 live now', membersOnly: true },
    });
    expect(await withoutCookies.check(url('kMembLive01'), null)).toMatchObject({
      state: 'no_access',
      reason: expect.stringMatching(/KURA_YTDLP_COOKIES is not set/),
    });
  });

  it('is accepted with a member’s cookies, and offers its playlist once live; a public stream is marked not members-only', async () => {
    const member = withCookies(() => memberCookies);
    expect(await member.inspect(url('kMembers001'))).toMatchObject({ kind: 'accepted', id: 'kMembers001', details: { membersOnly: true } });
    expect(await member.inspect(url('kMembLive01'))).toMatchObject({ kind: 'accepted', id: 'kMembLive01', details: { membersOnly: true } });
    expect(await member.check(url('kMembLive01'), null)).toMatchObject({ state: 'live', playlistUrl: 'http://127.0.0.1:1/members.m3u8' });
    expect(await withoutCookies.inspect(url('kUpcoming01'))).toMatchObject({ kind: 'accepted', details: { membersOnly: false } });
  });

  it('is rejected as needing a sign-in when YouTube asks for one (age-restricted), opened by cookies that are signed in', async () => {
    expect(await withoutCookies.inspect(url('kAgeGated01'))).toEqual({
      kind: 'rejected',
      signIn: true,
      reason:
        "YouTube asks to sign in (age-restricted or similar): Kura has no access (KURA_YTDLP_COOKIES is not set; a signed-in account's cookies are needed).",
    });
    expect(await withoutCookies.check(url('kAgeGated01'), null)).toMatchObject({ state: 'no_access' });
    expect(await withCookies(() => memberCookies).check(url('kAgeGated01'), null)).toMatchObject({ state: 'live' });
  });
});

describe('the Holodex signal', () => {
  const follow = followOf({ kind: 'holodex', url: 'holodex:org/Hololive', channelId: null, channelName: 'Hololive' });

  it("asks /live for the organisation's upcoming and live streams with the API key, and reads each stream's channel", async () => {
    const signal = createHolodexSignal({ fetcher, baseUrl: `${base}/holodex/api/v2`, apiKey: HOLODEX_KEY });
    expect([signal.name, signal.host(follow)]).toEqual(['holodex', new URL(base).host]);
    const candidates = await signal.look(follow);
    const asked = new URL(holodexAsked.at(-1)?.url ?? '', base);
    expect(holodexAsked.at(-1)?.key).toBe(HOLODEX_KEY);
    expect(Object.fromEntries(asked.searchParams)).toEqual({ org: 'Hololive', status: 'upcoming,live', type: 'stream', max_upcoming_hours: '48' });
    expect(candidates).toEqual([
      {
        id: 'hLive000001',
        url: 'https://www.youtube.com/watch?v=hLive000001',
        title: '【Minecraft】 live now',
        liveStatus: 'live',
        scheduledStart: new Date('2026-11-28T12:00:00.000Z'),
        membersOnly: null,
        channelId: 'UCholodexChannelLive0001',
        channelName: 'Live Ch.',
      },
      expect.objectContaining({ id: 'hUpcoming01', liveStatus: 'upcoming', membersOnly: true, channelName: 'Upcoming Ch.' }),
    ]);
  });

  it('asks by topic for a topic follow', async () => {
    const signal = createHolodexSignal({ fetcher, baseUrl: `${base}/holodex/api/v2`, apiKey: HOLODEX_KEY });
    await signal.look({ ...follow, url: 'holodex:topic/singing' });
    expect(new URL(holodexAsked.at(-1)?.url ?? '', base).searchParams.get('topic')).toBe('singing');
  });

  it('fails with the status when Holodex refuses the key', async () => {
    const signal = createHolodexSignal({ fetcher, baseUrl: `${base}/holodex/api/v2`, apiKey: 'wrong' });
    await expect(signal.look(follow)).rejects.toThrow(/HTTP 403/);
  });
});
