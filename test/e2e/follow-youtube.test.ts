import { readFile, chmod, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readPackageInfo } from '../../src/adapters/os/package-info.js';
import { YTDLP_STAND_IN } from '../support/app.js';
import { runKura, spawnKura, type KuraProcess } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { e2eEnv } from '../support/serve-env.js';

// Following a YouTube channel with the real `kura serve`: the channel's Atom feed is served here
// (test/fixtures/youtube/feed.xml, its dates made relative to now) and yt-dlp is the STAND-IN
// (test/support/bin/yt-dlp-stand-in.mjs), which also lists the channel's streams tab.
const CHANNEL = 'UCkuraFixtureChannel0001';
const HANDLE = '@fixturech';
const FEED_XML = path.join(readPackageInfo().root, 'test', 'fixtures', 'youtube', 'feed.xml');
/** How long ago each feed entry was published: the newest an hour ago, the oldest upload 9 days ago (beyond the feed's 7 days). */
const AGE_HOURS: Record<string, number> = { kUpcoming01: 1, kLiveNow001: 22, kMembers001: 23.5, kUpload0002: 48, kUpload0001: 9 * 24 };
const CHECKS_TIMEOUT = { timeout: 60_000, interval: 250 };

interface FeedServer {
  url: string;
  /** Requests it answered (each one feed look). */
  requests: number;
  /** Answer 500 instead of the feed. */
  failing: boolean;
  close(): Promise<void>;
}

interface Video {
  liveStatus: 'is_upcoming' | 'is_live' | 'not_live' | 'was_live';
  title?: string;
  releaseTimestamp?: number;
  membersOnly?: boolean;
}

let db: TestDatabase;
let cwd: string;
let stateFile: string;
let callsFile: string;
let feed: FeedServer;
let kura: KuraProcess | null = null;

beforeEach(async () => {
  db = await createTestDatabase();
  cwd = await mkdtemp(path.join(os.tmpdir(), 'kura-follow-youtube-'));
  await chmod(cwd, 0o755);
  stateFile = path.join(cwd, 'yt-dlp-state.json');
  callsFile = path.join(cwd, 'yt-dlp-calls.log');
  await writeFile(callsFile, '');
  feed = await startFeedServer(await datedFeed());
});
afterEach(async () => {
  kura?.child.kill('SIGKILL');
  await kura?.exited;
  kura = null;
  await feed.close();
  await db.drop();
  await rm(cwd, { recursive: true, force: true });
});

/** The fixture feed with each entry's `<published>` AGE_HOURS before now. */
async function datedFeed(): Promise<string> {
  const xml = await readFile(FEED_XML, 'utf8');
  return xml.replace(/<entry>[\s\S]*?<\/entry>/g, (entry) => {
    const id = /<yt:videoId>([\w-]+)<\/yt:videoId>/.exec(entry)![1]!;
    const published = new Date(Date.now() - AGE_HOURS[id]! * 3_600_000).toISOString();
    return entry.replace(/<published>[^<]*<\/published>/, `<published>${published}</published>`);
  });
}

/** A local stand-in for https://www.youtube.com/feeds/videos.xml that counts its requests. */
async function startFeedServer(xml: string): Promise<FeedServer> {
  const server: Server = createServer((request, response) => {
    state.requests += 1;
    if (state.failing) return void response.writeHead(500).end('oops');
    const channel = new URL(request.url ?? '/', 'http://feed').searchParams.get('channel_id');
    if (channel !== CHANNEL) return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'application/atom+xml; charset=UTF-8' }).end(xml);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const state: FeedServer = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/feeds/videos.xml`,
    requests: 0,
    failing: false,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  return state;
}

const inHours = (hours: number) => Math.floor(Date.now() / 1000 + hours * 3600);

/** What YouTube says of the fixture channel's videos (the feed's, plus `extra`), and which are on its streams tab. */
async function youtubeSays(extra: Record<string, Video> = {}, streams: string[] = ['kUpcoming01', 'kLiveNow001', 'kMembers001']): Promise<void> {
  const videos: Record<string, Video> = {
    kUpcoming01: { liveStatus: 'is_upcoming', title: '【歌枠】Karaoke night 🎤 #43 & friends', releaseTimestamp: inHours(2) },
    // live, but with no HLS format yet: the watch waits and no capture starts
    kLiveNow001: { liveStatus: 'is_live', title: '【Minecraft】 building the castle, part 7', releaseTimestamp: inHours(-1) },
    kMembers001: { liveStatus: 'is_upcoming', title: '【Members only】 zatsudan with members', releaseTimestamp: inHours(3), membersOnly: true },
    kUpload0002: { liveStatus: 'not_live', title: 'Highlights of the week (clip compilation)' },
    kUpload0001: { liveStatus: 'not_live', title: 'Cover: "Blue Bird" (short version)' },
    ...extra,
  };
  const state = { videos, channels: { [CHANNEL]: { handle: HANDLE, name: 'Fixture Ch. 試験', streams } }, membersOnlyAccess: false, calls: callsFile };
  // replaced whole (by a rename), so the stand-in never reads half of it
  await writeFile(`${stateFile}.new`, JSON.stringify(state));
  await rename(`${stateFile}.new`, stateFile);
}

const env = (extra: Record<string, string> = {}) =>
  e2eEnv(db.url, path.join(cwd, 'data'), {
    YTDLP_PATH: YTDLP_STAND_IN,
    YTDLP_STAND_IN_STATE: stateFile,
    KURA_FOLLOW_POLL_SECONDS: '1',
    KURA_YOUTUBE_FEED_URL: feed.url,
    // pacing is not what these tests prove; the watch of the live stream without HLS asks yt-dlp slowly
    KURA_FOLLOW_HOST_RATE: '6000',
    KURA_WATCH_POLL_SECONDS: '5',
    ...extra,
  });

/** `kura follow add URL …args`; returns the follow's id. */
async function followAdd(url: string, ...args: string[]): Promise<string> {
  const added = await runKura(['follow', 'add', url, ...args], env(), cwd);
  expect(added.code, added.stderr).toBe(0);
  return added.stdout.trim();
}

/** Starts `kura serve` (api and worker); resolves with the api's base URL. */
async function serve(extra: Record<string, string> = {}): Promise<string> {
  kura = spawnKura(['serve'], env(extra), cwd);
  return (await kura.waitForLog((l) => l.msg === 'kura api listening')).url as string;
}

interface SightingJson {
  streamId: string;
  verdict: string;
  reason: string;
}
const getFollow = async (api: string, id: string) => (await fetch(`${api}/api/follows/${id}`)).json();
/** The follow's latest verdict and reason per stream (GET /api/follows/{id} `recent`). */
async function verdicts(api: string, id: string): Promise<Record<string, [string, string]>> {
  const follow = (await getFollow(api, id)) as { recent: SightingJson[] };
  const latest: Record<string, [string, string]> = {};
  for (const s of follow.recent) latest[s.streamId] ??= [s.verdict, s.reason];
  return latest;
}
/** Polls the follow's decisions until they match (each check decides what is new). */
const decisions = (api: string, id: string) => expect.poll(() => verdicts(api, id), CHECKS_TIMEOUT);
const record = (id: string) => db.livestreams.findById(id);
/** The stand-in's runs, each as its arguments. */
const ytdlpCalls = async () =>
  (await readFile(callsFile, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as string[]);
/** Resolves once the follow was checked `n` more times (each check looks at the feed once while it is due every second). */
const checksFrom = async (n: number) => {
  const from = feed.requests;
  await expect.poll(() => feed.requests - from, CHECKS_TIMEOUT).toBeGreaterThanOrEqual(n);
};

describe('following a YouTube channel (feed fixture + yt-dlp stand-in)', () => {
  it('resolves a handle once, to the channel id the follow is kept under', async () => {
    await youtubeSays();
    const id = await followAdd(`https://www.youtube.com/${HANDLE}`);
    const api = await serve();
    expect(await getFollow(api, id)).toMatchObject({
      kind: 'youtube_channel',
      url: `https://www.youtube.com/channel/${CHANNEL}`,
      channelId: CHANNEL,
      channelName: 'Fixture Ch. 試験',
      createdBy: expect.stringMatching(/^cli\//),
    });
    await checksFrom(3);
    const calls = await ytdlpCalls();
    expect(calls.filter((args) => args.at(-1)!.includes(HANDLE))).toHaveLength(1);
    // every look at the channel since names it by its id
    expect(calls.filter((args) => args.at(-1) === `https://www.youtube.com/channel/${CHANNEL}/streams`).length).toBeGreaterThanOrEqual(2);
  });

  it('queues the upcoming and live streams, not the uploads, and skips the members-only one; its signals say when they answered', async () => {
    await youtubeSays();
    const id = await followAdd(CHANNEL);
    const api = await serve();
    await expect.poll(() => record('kLiveNow001'), CHECKS_TIMEOUT).not.toBeNull();
    expect(await record('kUpcoming01')).toMatchObject({
      status: 'upcoming',
      platform: 'youtube',
      channelId: CHANNEL,
      channelName: 'Fixture Ch. 試験',
      submitters: [`follow/${id}`],
      scheduledStart: expect.any(Date),
    });
    // upcoming in Kura's words until its capture starts: the stand-in offers no HLS format yet
    expect(await record('kLiveNow001')).toMatchObject({ status: 'upcoming', title: '【Minecraft】 building the castle, part 7', submitters: [`follow/${id}`] });
    await decisions(api, id).toEqual({
      kUpcoming01: ['queued', 'queued as if submitted'],
      kLiveNow001: ['queued', 'queued as if submitted'],
      kMembers001: ['skipped', 'members-only (the follow skips them)'],
      kUpload0002: ['skipped', 'This video is not a livestream.'],
      // kUpload0001, 9 days old, is no candidate at all: the feed's old uploads cost no yt-dlp run
    });
    expect(await record('kMembers001')).toBeNull();
    expect(await record('kUpload0002')).toBeNull();
    expect((await ytdlpCalls()).some((args) => args.at(-1)!.includes('kUpload0001'))).toBe(false);

    const [listed] = await (await fetch(`${api}/api/follows`)).json();
    expect(listed).toMatchObject({ id, health: 'ok', queued: 2, failingSince: null, lastCheckedAt: expect.any(String), nextCheckAt: expect.any(String) });
    expect(new Date(listed.nextCheckAt).getTime()).toBeGreaterThan(new Date(listed.lastCheckedAt).getTime());
    expect(listed.signals).toEqual([
      expect.objectContaining({ signal: 'feed', lastOkAt: expect.any(String), lastError: null }),
      expect.objectContaining({ signal: 'tabs', lastOkAt: expect.any(String), lastError: null }),
    ]);
  });

  it('with --members-only include and no member access, gives the members-only stream a failed record that says why', async () => {
    await youtubeSays();
    const id = await followAdd(CHANNEL, '--members-only', 'include');
    const api = await serve();
    await expect.poll(() => record('kMembers001'), CHECKS_TIMEOUT).not.toBeNull();
    const failed = await record('kMembers001');
    expect(failed).toMatchObject({ status: 'failed', submitters: [`follow/${id}`] });
    expect(failed!.failureReason).toBe("Members-only: Kura has no access to this stream (KURA_YTDLP_COOKIES is not set; a member's cookies are needed).");
    // the sighting is written just after the record it decided: wait for it as for the record
    await expect.poll(async () => (await verdicts(api, id)).kMembers001, CHECKS_TIMEOUT).toEqual(['failed', failed!.failureReason]);
  });

  it('queues a stream the feed does not list but the streams tab does', async () => {
    await youtubeSays({ kTabOnly001: { liveStatus: 'is_upcoming', title: 'Unannounced karaoke', releaseTimestamp: inHours(5) } }, [
      'kTabOnly001',
      'kUpcoming01',
      'kLiveNow001',
    ]);
    expect(await readFile(FEED_XML, 'utf8')).not.toContain('kTabOnly001');
    const id = await followAdd(CHANNEL);
    const api = await serve();
    await expect.poll(() => record('kTabOnly001'), CHECKS_TIMEOUT).toMatchObject({ status: 'upcoming', submitters: [`follow/${id}`] });
    await expect.poll(async () => (await verdicts(api, id)).kTabOnly001, CHECKS_TIMEOUT).toEqual(['queued', 'queued as if submitted']);
  });

  it('--title-exclude skips a matching title and queues the rest', async () => {
    await youtubeSays();
    const id = await followAdd(CHANNEL, '--title-exclude', 'minecraft');
    const api = await serve();
    await decisions(api, id).toMatchObject({
      kUpcoming01: ['queued', 'queued as if submitted'],
      kLiveNow001: ['skipped', 'the title matches the excluded /minecraft/i'],
    });
    expect(await record('kUpcoming01')).toMatchObject({ submitters: [`follow/${id}`] });
    expect(await record('kLiveNow001')).toBeNull();
  });

  it('--title-include queues only the matching titles', async () => {
    await youtubeSays();
    const id = await followAdd(CHANNEL, '--title-include', 'karaoke|カラオケ');
    const api = await serve();
    await decisions(api, id).toMatchObject({
      kUpcoming01: ['queued', 'queued as if submitted'],
      kLiveNow001: ['skipped', 'the title does not match /karaoke|カラオケ/i'],
      kUpload0002: ['skipped', 'the title does not match /karaoke|カラオケ/i'],
    });
    expect(await record('kLiveNow001')).toBeNull();
    // the count is written when the check ends, just after its last decision
    await expect.poll(async () => (await getFollow(api, id)).queued, CHECKS_TIMEOUT).toBe(1);
  });

  it('never queues a stream twice over many checks, and queues one beyond the horizon once it is moved into it', async () => {
    await youtubeSays({ kFarAhead01: { liveStatus: 'is_upcoming', title: 'Anniversary concert', releaseTimestamp: inHours(72) } }, [
      'kFarAhead01',
      'kUpcoming01',
      'kLiveNow001',
    ]);
    const id = await followAdd(CHANNEL);
    const api = await serve();
    await decisions(api, id).toMatchObject({
      kUpcoming01: ['queued', expect.any(String)],
      kLiveNow001: ['queued', expect.any(String)],
      kFarAhead01: ['later', expect.stringMatching(/beyond the 48 h horizon$/)],
    });
    await checksFrom(4);
    for (const stream of ['kUpcoming01', 'kLiveNow001']) expect((await record(stream))!.submitters).toEqual([`follow/${id}`]);
    const { rows } = await db.pool.query(`select id from livestreams order by id`);
    expect(rows.map((r) => r.id)).toEqual(['kLiveNow001', 'kUpcoming01']);
    expect((await getFollow(api, id)).queued).toBe(2);

    // the streamer moves the concert to tomorrow: within the horizon, so it is queued at the next look
    await youtubeSays({ kFarAhead01: { liveStatus: 'is_upcoming', title: 'Anniversary concert', releaseTimestamp: inHours(20) } }, [
      'kFarAhead01',
      'kUpcoming01',
      'kLiveNow001',
    ]);
    await expect.poll(() => record('kFarAhead01'), CHECKS_TIMEOUT).toMatchObject({ status: 'upcoming', submitters: [`follow/${id}`] });
    // the record is queued during the check, the follow's count written at its end
    await expect.poll(async () => (await getFollow(api, id)).queued, CHECKS_TIMEOUT).toBe(3);
  });

  it('keeps queuing from the streams tab while the feed answers 500, and says so in the feed signal', async () => {
    feed.failing = true;
    await youtubeSays({ kTabOnly001: { liveStatus: 'is_upcoming', title: 'Unannounced karaoke', releaseTimestamp: inHours(5) } }, ['kTabOnly001']);
    const id = await followAdd(CHANNEL);
    const api = await serve();
    await expect.poll(() => record('kTabOnly001'), CHECKS_TIMEOUT).toMatchObject({ submitters: [`follow/${id}`] });
    await checksFrom(1);
    const follow = await getFollow(api, id);
    expect(follow).toMatchObject({ health: 'ok', failingSince: null, lastCheckedAt: expect.any(String) });
    expect(follow.signals).toEqual([
      expect.objectContaining({ signal: 'feed', lastOkAt: null, lastError: expect.stringContaining('500'), lastErrorAt: expect.any(String) }),
      expect.objectContaining({ signal: 'tabs', lastOkAt: expect.any(String), lastError: null }),
    ]);

    feed.failing = false;
    await expect
      .poll(async () => (await getFollow(api, id)).signals[0], CHECKS_TIMEOUT)
      .toMatchObject({ signal: 'feed', lastOkAt: expect.any(String), lastError: null });
  });
});
