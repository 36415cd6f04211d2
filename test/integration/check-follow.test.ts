import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCaptureRepo } from '../../src/adapters/db/capture-repo.js';
import { createFollowRepo } from '../../src/adapters/db/follow-repo.js';
import { createHostPacer } from '../../src/adapters/follows/host-pacer.js';
import { createYouTubeChannelResolver } from '../../src/adapters/follows/youtube-channel-resolver.js';
import { addFollow } from '../../src/core/follows/add-follow.js';
import { checkFollow, type CheckDeps, type CheckPolicy } from '../../src/core/follows/check-follow.js';
import { healthOf, type Follow, type FollowRequest, type SignalName, type StreamCandidate } from '../../src/core/follows/follow.js';
import type { FollowRepo, FollowSignal } from '../../src/core/follows/ports.js';
import { createYouTubeSource, createYtDlp } from '../../src/adapters/sources/youtube-source.js';
import type { Jobs } from '../../src/jobs/jobs.js';
import { testSources, YTDLP_STAND_IN, YTDLP_STAND_IN_PROGRAM } from '../support/app.js';
import { createHlsEndpointSignal } from '../../src/adapters/follows/hls-endpoint-signal.js';
import { createFetcher } from '../../src/adapters/sources/http-fetch.js';
import { startHlsEndpointFixture } from '../support/hls-endpoint-fixture.js';
import { ytdlpProgram } from '../../src/adapters/ytdlp/ytdlp-program.js';
import { updateFollow } from '../../src/core/follows/update-follow.js';
import { presentFollow } from '../../src/http/follows/follow.presenter.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startJobsWithoutWorkers } from '../support/jobs.js';
import { checkAsHeld } from '../support/follow-holder.js';

const CHANNEL = 'UCabcdefghijklmnopqrstuv';
/** A cookies.txt line the stand-in opens members-only videos for (a member's), and one it does not. */
const MEMBER_COOKIE = '.youtube.com\tTRUE\t/\tTRUE\t1900000000\tSID\tmember-session';
const OTHER_COOKIE = '.youtube.com\tTRUE\t/\tTRUE\t1900000000\tSID\tno-member-session';
const T0 = new Date('2026-03-01T12:00:00Z');
const minutes = (n: number) => new Date(T0.getTime() + n * 60_000);
const watchUrl = (id: string) => `https://www.youtube.com/watch?v=${id}`;

/** A candidate as a signal would list it; `id` is an 11-character video id. */
const candidate = (id: string, extra: Partial<StreamCandidate> = {}): StreamCandidate => ({
  url: watchUrl(id),
  id,
  title: null,
  scheduledStart: null,
  liveStatus: 'upcoming',
  membersOnly: null,
  ...extra,
});

/**
 * An IN-TEST FollowSignal: lists what the test says it lists now (or fails with the test's words),
 * so each case names exactly what each signal saw; the real signals are proven in
 * youtube-signals.test.ts and, with all of this, in test/e2e/follow-youtube.test.ts.
 */
function listingSignal(name: SignalName) {
  const signal = { shows: [] as StreamCandidate[], failure: null as string | null, looks: 0 };
  const port: FollowSignal = {
    name,
    host: () => `${name}.example`,
    async look() {
      signal.looks += 1;
      if (signal.failure !== null) throw new Error(signal.failure);
      return signal.shows;
    },
  };
  return Object.assign(signal, { port });
}

interface VideoSays {
  liveStatus?: 'is_upcoming' | 'is_live' | 'not_live' | 'was_live';
  title?: string;
  scheduledStart?: Date;
  membersOnly?: boolean;
  /** yt-dlp fails with this ERROR line. */
  error?: string;
}

/**
 * What YouTube says of each video, through the yt-dlp STAND-IN the real YouTube source runs
 * (test/support/bin/yt-dlp-stand-in.mjs, state in $YTDLP_STAND_IN_STATE); its runs are logged.
 */
function youtubeStandIn(dir: string) {
  const stateFile = path.join(dir, 'state.json');
  const callsFile = path.join(dir, 'calls.log');
  const videos: Record<string, object> = {};
  const channels = { [CHANNEL]: { handle: '@karaoke', name: 'Karaoke Channel', streams: [] } };
  const write = () => writeFile(stateFile, JSON.stringify({ videos, channels, memberCookie: MEMBER_COOKIE, calls: callsFile }));
  return {
    stateFile,
    write,
    /** yt-dlp describes the video so (an upcoming stream 30 minutes after T0 unless told otherwise). */
    says(id: string, video: VideoSays) {
      const start = video.scheduledStart ?? minutes(30);
      videos[id] = { liveStatus: 'is_upcoming', ...video, releaseTimestamp: Math.floor(start.getTime() / 1000) };
      return write();
    },
    /** A cookies.txt (at `file`, else a new one): a member's (true) or a signed-in account's that is no member (false). Returns its path. */
    async cookies(member: boolean, file = path.join(dir, `cookies-${member ? 'member' : 'other'}.txt`)) {
      await writeFile(file, `# Netscape HTTP Cookie File\n${member ? MEMBER_COOKIE : OTHER_COOKIE}\n`);
      return file;
    },
    /**
     * The videos yt-dlp was asked about (by watch URL), in order: one per look (the second run that
     * confirms a live stream's refusal from its HLS formats is part of it, and so is the run with the
     * cookies that follows one refused without them, decision 0089).
     */
    async inspected() {
      const log = await readFile(callsFile, 'utf8').catch(() => '');
      return log
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as string[])
        .filter((args) => !args.includes('--no-live-from-start') && !args.includes('--cookies'))
        .map((args) => args.at(-1))
        .filter((url) => url?.includes('/watch?v='));
    },
  };
}

let db: TestDatabase;
let jobs: Jobs;
let follows: FollowRepo;
let feed: ReturnType<typeof listingSignal>;
let tabs: ReturnType<typeof listingSignal>;
let youtube: ReturnType<typeof youtubeStandIn>;
let dir: string;
let deps: CheckDeps;
const policy: CheckPolicy = { intervals: { feed: 60, tabs: 60, holodex: 60, playlist: 60, helix: 60 }, horizonSeconds: 48 * 3600, random: () => 0.5 };

beforeEach(async () => {
  db = await createTestDatabase();
  jobs = await startJobsWithoutWorkers(db.pool);
  follows = createFollowRepo(db.pool);
  feed = listingSignal('feed');
  tabs = listingSignal('tabs');
  dir = await mkdtemp(path.join(os.tmpdir(), 'kura-check-follow-'));
  youtube = youtubeStandIn(dir);
  await youtube.write();
  process.env.YTDLP_STAND_IN_STATE = youtube.stateFile;
  const unused = listingSignal('holodex').port;
  deps = {
    follows,
    livestreams: db.livestreams,
    captures: createCaptureRepo(db.pool),
    scheduler: jobs,
    source: createYouTubeSource(createYtDlp(YTDLP_STAND_IN_PROGRAM)),
    pacer: createHostPacer({ requestsPerMinute: 600_000 }),
    signals: { feed: feed.port, tabs: tabs.port, holodex: unused, playlist: unused, helix: unused },
  };
});
afterEach(async () => {
  await jobs.stop(0);
  await db.drop();
  delete process.env.YTDLP_STAND_IN_STATE;
  await rm(dir, { recursive: true, force: true });
});

async function follow(request: Partial<FollowRequest> = {}): Promise<Follow> {
  const resolver = {
    ...createYouTubeChannelResolver({ ytdlp: YTDLP_STAND_IN_PROGRAM }),
    resolveTwitch: () => Promise.reject(new Error('no Twitch follow here')),
  };
  return addFollow(
    { follows, resolver, policy: { holodex: false, twitch: false, refuseUrl: () => null, checkAddresses: async () => null } },
    { follow: { url: CHANNEL, ...request }, createdBy: 'local/root', now: T0 },
  );
}

/** Checks the follow as stored now, at `at`. */
async function check(id: string, at: Date) {
  return checkAsHeld(deps, id, policy, at);
}
const verdicts = async (id: string) => Object.fromEntries((await follows.recentSightings(id, 50)).map((s) => [s.streamId, [s.verdict, s.reason]]));

describe('checking a follow', () => {
  it('queues what the title rules let through, as submitted by follow/{id}, and skips the rest without asking yt-dlp', async () => {
    const f = await follow({ titleInclude: 'karaoke', titleExclude: 'rerun' });
    feed.shows = [
      candidate('karaoke0001', { title: 'KARAOKE night' }),
      candidate('zatsudan001', { title: 'Zatsudan' }),
      candidate('karaoke0002', { title: 'Karaoke rerun' }),
    ];
    await youtube.says('karaoke0001', { title: 'KARAOKE night' });
    const outcome = await check(f.id, T0);
    expect(outcome.queued).toBe(1);
    expect(await verdicts(f.id)).toEqual({
      karaoke0001: ['queued', expect.any(String)],
      zatsudan001: ['skipped', 'the title does not match /karaoke/i'],
      karaoke0002: ['skipped', 'the title matches the excluded /rerun/i'],
    });
    expect(await youtube.inspected()).toEqual([watchUrl('karaoke0001')]);
    expect(await db.livestreams.findById('karaoke0001')).toMatchObject({ status: 'upcoming', submitters: [`follow/${f.id}`] });
    expect(await db.livestreams.findById('zatsudan001')).toBeNull();
    expect((await follows.find(f.id))!.queuedCount).toBe(1);
  });

  it('re-applies the title rules to the title yt-dlp gives when the signal had none', async () => {
    const f = await follow({ titleInclude: 'karaoke' });
    feed.shows = [candidate('untitled001')];
    await youtube.says('untitled001', { title: 'Minecraft' });
    await check(f.id, T0);
    expect(await verdicts(f.id)).toEqual({ untitled001: ['skipped', 'the title does not match /karaoke/i'] });
    expect(await db.livestreams.findById('untitled001')).toBeNull();
  });

  it('skips members-only streams by default; including them gives a failed record that says why', async () => {
    const skipping = await follow();
    feed.shows = [candidate('members0001', { membersOnly: true, title: 'Members karaoke' })];
    await check(skipping.id, T0);
    expect(await verdicts(skipping.id)).toEqual({ members0001: ['skipped', 'members-only (the follow skips them)'] });
    expect(await youtube.inspected()).toEqual([]);

    await follows.remove(skipping.id);
    const including = await follow({ membersOnly: 'include' });
    await youtube.says('members0001', { title: 'Members karaoke', membersOnly: true });
    await check(including.id, T0);
    expect(await youtube.inspected()).toEqual([watchUrl('members0001')]);
    const record = await db.livestreams.findById('members0001');
    expect(record).toMatchObject({ status: 'failed', submitters: [`follow/${including.id}`], channelId: CHANNEL, title: 'Members karaoke' });
    expect(record!.failureReason).toBe("Members-only: Kura has no access to this stream (KURA_YTDLP_COOKIES is not set; a member's cookies are needed).");
    expect((await verdicts(including.id)).members0001).toEqual(['failed', record!.failureReason]);
    // the follow includes them: it stands failing for it (see the cookies tests below)
    expect((await follows.find(including.id))!.accessRefused).toMatchObject({ since: T0, probeUrl: watchUrl('members0001') });
  });

  it("with a member's cookies, queues a members-only stream the follow includes, and skips one it does not by what yt-dlp says", async () => {
    deps.source = createYouTubeSource(createYtDlp(ytdlpProgram(YTDLP_STAND_IN, { cookiesFile: await youtube.cookies(true) })));
    await youtube.says('members0002', { title: 'Members karaoke', membersOnly: true });
    const skipping = await follow();
    feed.shows = [candidate('members0002', { title: 'Members karaoke' })]; // the feed cannot tell
    await check(skipping.id, T0);
    expect(await verdicts(skipping.id)).toEqual({ members0002: ['skipped', 'members-only (the follow skips them)'] });
    expect(await db.livestreams.findById('members0002')).toBeNull();

    await follows.remove(skipping.id);
    const including = await follow({ membersOnly: 'include' });
    await check(including.id, T0);
    expect(await db.livestreams.findById('members0002')).toMatchObject({ status: 'upcoming', submitters: [`follow/${including.id}`] });
    expect(await follows.find(including.id)).toMatchObject({ failingSince: null, accessRefused: null });
  });

  it('turns a follow that includes members-only streams failing when the cookies no longer open one, and healthy when they do again', async () => {
    const cookiesFile = await youtube.cookies(false); // an account that is no member (or whose login expired)
    deps.source = createYouTubeSource(createYtDlp(ytdlpProgram(YTDLP_STAND_IN, { cookiesFile })));
    const f = await follow({ membersOnly: 'include' });
    feed.shows = [candidate('memberlive1', { title: 'Members karaoke', liveStatus: 'live' })];
    await youtube.says('memberlive1', { title: 'Members karaoke', membersOnly: true, liveStatus: 'is_live' });
    const outcome = await check(f.id, T0);
    const words =
      "the cookies no longer give access to members-only streams (KURA_YTDLP_COOKIES): YouTube refused memberlive1: Members-only: the cookies no longer give access to this stream (KURA_YTDLP_COOKIES must be a current member's cookies).";
    expect(outcome).toMatchObject({ failingSince: T0, becameUnhealthy: false, accessRefused: { error: words, since: T0, probeUrl: watchUrl('memberlive1') } });
    let stored = (await follows.find(f.id))!;
    // every signal answered: it is failing for the cookies alone
    expect(stored.signals.every((s) => s.lastError === null)).toBe(true);
    expect(healthOf(stored, minutes(1))).toBe('failing');
    expect(presentFollow(stored, minutes(1), 'admin')).toMatchObject({ health: 'failing', accessError: words, failingSince: T0.toISOString() });
    expect(await db.livestreams.findById('memberlive1')).toMatchObject({
      status: 'failed',
      failureReason: expect.stringMatching(/^Members-only: the cookies no longer give access/),
    });

    // each check looks at the refused stream again: still refused, still the same spell
    feed.shows = [];
    await check(f.id, minutes(2));
    expect(await youtube.inspected()).toEqual([watchUrl('memberlive1'), watchUrl('memberlive1')]);
    expect((await check(f.id, minutes(61))).becameUnhealthy).toBe(true);
    expect((await check(f.id, minutes(63))).becameUnhealthy).toBe(false);
    stored = (await follows.find(f.id))!;
    expect([stored.failingSince, healthOf(stored, minutes(63)), stored.accessRefused?.since]).toEqual([T0, 'unhealthy', T0]);

    // the operator puts a member's cookies in the same file: the next check sees the stream open
    await youtube.cookies(true, cookiesFile);
    const healed = await check(f.id, minutes(64));
    expect(healed).toMatchObject({ failingSince: null, accessRefused: null, becameUnhealthy: false });
    stored = (await follows.find(f.id))!;
    expect(healthOf(stored, minutes(64))).toBe('ok');
    expect(presentFollow(stored, minutes(64), 'admin').accessError).toBeNull();
    // healthy, the stream refused is no longer looked at
    await check(f.id, minutes(66));
    expect((await youtube.inspected()).length).toBe(5);
  });

  it('leaves a follow that skips members-only streams healthy, and clears a refusal once the follow stops including them', async () => {
    deps.source = createYouTubeSource(createYtDlp(ytdlpProgram(YTDLP_STAND_IN, { cookiesFile: await youtube.cookies(false) })));
    await youtube.says('memberlive2', { title: 'Members karaoke', membersOnly: true, liveStatus: 'is_live' });
    feed.shows = [candidate('memberlive2', { title: 'Members karaoke', liveStatus: 'live' })];
    const skipping = await follow();
    await check(skipping.id, T0);
    expect(await verdicts(skipping.id)).toEqual({ memberlive2: ['skipped', 'members-only (the follow skips them)'] });
    expect(await follows.find(skipping.id)).toMatchObject({ failingSince: null, accessRefused: null });

    await follows.remove(skipping.id);
    const including = await follow({ membersOnly: 'include' });
    await check(including.id, T0);
    expect((await follows.find(including.id))!.failingSince).toEqual(T0);
    await updateFollow({ follows }, { id: including.id, change: { membersOnly: 'skip' }, now: minutes(1) });
    await check(including.id, minutes(2));
    expect(await follows.find(including.id)).toMatchObject({ failingSince: null, accessRefused: null });
  });

  it('decides a stream beyond the horizon later, and queues it at the first check once it comes into it', async () => {
    const f = await follow();
    const start = minutes(72 * 60);
    feed.shows = [candidate('farahead001', { title: 'Karaoke', scheduledStart: start })];
    await youtube.says('farahead001', { title: 'Karaoke', scheduledStart: start });
    await check(f.id, T0);
    const [later] = await follows.recentSightings(f.id, 1);
    expect(later).toMatchObject({ verdict: 'later', reason: 'scheduled 2026-03-04 12:00 UTC, beyond the 48 h horizon', recheckAt: minutes(24 * 60) });
    await check(f.id, minutes(10));
    expect(await youtube.inspected()).toEqual([]); // not due again yet
    await check(f.id, minutes(24 * 60 + 1));
    expect((await verdicts(f.id)).farahead001?.[0]).toBe('queued');
    expect(await youtube.inspected()).toEqual([watchUrl('farahead001')]);
    expect(await db.livestreams.findById('farahead001')).toMatchObject({ status: 'upcoming' });
  });

  it('queues a stream decided later as soon as a signal says it was moved into the horizon', async () => {
    const f = await follow();
    const start = minutes(72 * 60);
    tabs.shows = [candidate('moved000001', { title: 'Karaoke', scheduledStart: start })];
    await youtube.says('moved000001', { title: 'Karaoke', scheduledStart: start });
    await check(f.id, T0);
    expect((await verdicts(f.id)).moved000001?.[0]).toBe('later');
    // the streamer moves it to this evening: the tab says so at its next look
    const moved = minutes(6 * 60);
    tabs.shows = [candidate('moved000001', { title: 'Karaoke', scheduledStart: moved })];
    await youtube.says('moved000001', { title: 'Karaoke', scheduledStart: moved });
    await check(f.id, minutes(2));
    expect((await verdicts(f.id)).moved000001?.[0]).toBe('queued');
    expect(await db.livestreams.findById('moved000001')).toMatchObject({ status: 'upcoming', scheduledStart: moved });
  });

  it('never queues one stream twice, whether two signals list it or two checks see it', async () => {
    const f = await follow();
    feed.shows = [candidate('twice000001', { title: 'Karaoke' })];
    tabs.shows = [candidate('twice000001', { title: 'Karaoke', liveStatus: 'live' })];
    await youtube.says('twice000001', { title: 'Karaoke' });
    expect((await check(f.id, T0)).queued).toBe(1);
    expect((await check(f.id, minutes(2))).queued).toBe(0);
    expect(feed.looks).toBe(2);
    expect(await youtube.inspected()).toEqual([watchUrl('twice000001')]);
    expect((await follows.find(f.id))!.queuedCount).toBe(1);
    expect((await db.livestreams.findById('twice000001'))!.submitters).toEqual([`follow/${f.id}`]);
  });

  it('leaves a stream Kura already has a record of alone (a failed one is not revived)', async () => {
    await db.livestreams.upsertMany([
      {
        id: 'failed00001',
        platform: 'youtube',
        sourceUrl: watchUrl('failed00001'),
        status: 'failed',
        failureReason: 'cancelled by an admin',
        title: 'Karaoke',
        channelName: 'Karaoke Channel',
        channelId: CHANNEL,
        thumbnailUrl: null,
        scheduledStart: T0,
        startedAt: null,
        endedAt: null,
        archive: null,
        submitters: ['local/viewer'],
        requestedQuality: null,
      },
    ]);
    const f = await follow();
    feed.shows = [candidate('failed00001', { title: 'Karaoke' })];
    await youtube.says('failed00001', { title: 'Karaoke' });
    await check(f.id, T0);
    expect((await verdicts(f.id)).failed00001?.[0]).toBe('known');
    expect(await youtube.inspected()).toEqual([]);
    expect(await db.livestreams.findById('failed00001')).toMatchObject({ status: 'failed', submitters: ['local/viewer'] });
  });

  it('keeps a failed yt-dlp look open: decided again at the next check', async () => {
    const f = await follow();
    feed.shows = [candidate('flaky000001', { title: 'Karaoke' })];
    await youtube.says('flaky000001', { error: 'Video unavailable. This video is unavailable.' });
    await check(f.id, T0);
    expect((await verdicts(f.id)).flaky000001).toEqual(['later', expect.stringMatching(/Video unavailable.*next check/)]);
    await youtube.says('flaky000001', { title: 'Karaoke' });
    await check(f.id, minutes(2));
    expect((await verdicts(f.id)).flaky000001?.[0]).toBe('queued');
  });

  it('marks a follow failing when every signal fails, unhealthy after an hour, and clears it when one answers', async () => {
    const f = await follow();
    feed.failure = 'the feed answered 500';
    tabs.failure = 'yt-dlp exited 1: HTTP Error 429';
    await check(f.id, T0);
    let stored = (await follows.find(f.id))!;
    expect(stored.failingSince).toEqual(T0);
    expect(stored.signals).toEqual([
      expect.objectContaining({ signal: 'feed', lastError: 'the feed answered 500', lastErrorAt: T0, lastOkAt: null, nextCheckAt: minutes(1) }),
      expect.objectContaining({ signal: 'tabs', lastError: 'yt-dlp exited 1: HTTP Error 429' }),
    ]);
    expect(stored.nextCheckAt).toEqual(minutes(1));
    expect(healthOf(stored, minutes(30))).toBe('failing');
    await check(f.id, minutes(61));
    stored = (await follows.find(f.id))!;
    expect(stored.failingSince).toEqual(T0);
    expect(healthOf(stored, minutes(61))).toBe('unhealthy');

    tabs.failure = null;
    await check(f.id, minutes(63));
    stored = (await follows.find(f.id))!;
    expect(stored.failingSince).toBeNull();
    expect(healthOf(stored, minutes(63))).toBe('ok');
    expect(stored.signals[1]).toMatchObject({ signal: 'tabs', lastError: null, lastOkAt: minutes(63) });
    expect(stored.signals[0]).toMatchObject({ signal: 'feed', lastError: 'the feed answered 500' });
  });
});

describe('checking an HLS endpoint follow', () => {
  it('applies the title rules to the title the broadcast’s record would get: an excluded one is skipped, saying why, the next one let through is queued', async () => {
    const endpoint = await startHlsEndpointFixture();
    try {
      deps = {
        ...deps,
        source: testSources(),
        signals: { ...deps.signals, playlist: createHlsEndpointSignal({ fetcher: createFetcher({ allowPrivate: true }) }) },
      };
      // the probe's rule that matches every title still queued the broadcast
      const { id } = await follow({ url: endpoint.url, channel: 'Karaoke night', titleExclude: '.' });
      await endpoint.broadcast({ seconds: 3 }).onAir;
      expect((await check(id, T0)).queued).toBe(0);
      expect(await db.livestreams.findLatestBySource(endpoint.url)).toBeNull();
      expect(await follows.recentSightings(id, 10)).toContainEqual(
        expect.objectContaining({ title: 'Karaoke night 2026-03-01 12:00 UTC', verdict: 'skipped', reason: 'the title matches the excluded /./i' }),
      );

      await endpoint.goOffline();
      await updateFollow({ follows }, { id, change: { titleExclude: null, titleInclude: '^karaoke night 2026-03-01 12:01 UTC$' }, now: minutes(1) });
      await endpoint.broadcast({ seconds: 3 }).onAir;
      expect((await check(id, minutes(1))).queued).toBe(1);
      expect(await db.livestreams.findLatestBySource(endpoint.url)).toMatchObject({
        title: 'Karaoke night 2026-03-01 12:01 UTC',
        submitters: [`follow/${id}`],
      });
    } finally {
      await endpoint.close();
    }
  });
});

describe('claiming follows', () => {
  it('never gives one follow to two workers claiming at once, skips paused ones, and lets another take them over when the lease ran out', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 12; i += 1) ids.push((await follow({ url: `https://live${i}.example.org/live/index.m3u8` })).id);
    await follows.update(ids[0]!, { paused: true });
    const [a, b] = (await Promise.all([follows.claim('worker-a', minutes(1), 300, 8), follows.claim('worker-b', minutes(1), 300, 8)])).map((c) => c.follows);
    const claimed = [...a!, ...b!].map((x) => x.id);
    expect(new Set(claimed).size).toBe(claimed.length);
    expect(claimed.sort()).toEqual(ids.slice(1).sort());
    // leased for 300 s: nothing to take, and the first lease runs out at minute 6
    expect(await follows.claim('worker-c', minutes(2), 300, 20)).toEqual({ follows: [], nextLeaseEnd: minutes(6) });
    // worker-a renews its own (at minute 2, for 300 s more); worker-b's lease runs out at minute 6
    expect(
      (
        await follows.renew(
          'worker-a',
          a!.map((x) => x.id),
          minutes(7),
        )
      ).sort(),
    ).toEqual(a!.map((x) => x.id).sort());
    const takenOver = await follows.claim('worker-c', minutes(6), 300, 20);
    expect(takenOver.follows.map((x) => x.id).sort()).toEqual(b!.map((x) => x.id).sort());
    expect(takenOver.nextLeaseEnd).toEqual(minutes(7)); // worker-a's renewed lease
    expect(
      await follows.renew(
        'worker-b',
        b!.map((x) => x.id),
        minutes(11),
      ),
    ).toEqual([]); // no longer its own
  });

  it('keeps a resume made while a check ran: the follow is due then, not an interval later', async () => {
    const { id } = await follow();
    await check(id, minutes(1));
    const claimed = (await follows.claim('worker-a', minutes(2), 300, 10)).follows[0]!;
    expect(claimed.nextCheckAt).toEqual(minutes(2));
    // the check due at minute 2 starts; while it looks, the admin pauses and resumes the follow (at minute 1.5)
    await follows.update(id, { paused: true });
    await follows.update(id, { paused: false, nextCheckAt: minutes(1.5) });
    const { unwritten } = await checkFollow(deps, claimed, policy, minutes(2));
    expect(unwritten).not.toBeNull(); // it changed only times: written in the worker's next batch
    await follows.recordLooks('worker-a', [unwritten!]);
    expect((await follows.find(id))?.nextCheckAt).toEqual(minutes(1.5));
    expect((await follows.find(id))?.signals.map((s) => s.nextCheckAt)).toEqual([minutes(1.5), minutes(1.5)]);
    // a check nothing changed during moves the next one an interval (a minute) on, as before
    await follows.release('worker-a', null);
    await check(id, minutes(2));
    expect((await follows.find(id))?.nextCheckAt).toEqual(minutes(3));
  });
});
