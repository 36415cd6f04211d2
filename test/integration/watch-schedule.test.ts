import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createYouTubeSource, createYtDlp } from '../../src/adapters/sources/youtube-source.js';
import { ytdlpProgram } from '../../src/adapters/ytdlp/ytdlp-program.js';
import { YTDLP_STAND_IN } from '../support/app.js';
import type { LivestreamInput } from '../../src/core/records/livestream.js';
import { watchStream, type WatchPolicy } from '../../src/core/record-actions/watch-stream.js';
import type { SourceStatus, StreamSource } from '../../src/core/sources/ports.js';
import type { Jobs } from '../../src/jobs/jobs.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { queuedJobs, startJobsWithoutWorkers } from '../support/jobs.js';

// The watcher's schedule with the clock given to it: each test hands `watchStream` the `now` it
// wants, so "10 h before the start" takes no time. The records are real rows and the next look is
// the real pg-boss job it queues (its `startAfter`); only the source's answer is scripted.
let db: TestDatabase;
let jobs: Jobs;
beforeAll(async () => {
  db = await createTestDatabase();
  jobs = await startJobsWithoutWorkers(db.pool);
});
afterAll(async () => {
  await jobs.stop(0);
  await db.drop();
});

const policy: WatchPolicy = { pollSeconds: 60, neverLiveSeconds: 2 * 3600 };
const NOW = new Date('2026-03-01T12:00:00Z');
const at = (secondsFromNow: number) => new Date(NOW.getTime() + secondsFromNow * 1000);

/** A source that answers `status` for every check. */
function sourceSaying(status: SourceStatus): StreamSource {
  const unused = async (): Promise<never> => {
    throw new Error('the watcher only checks');
  };
  return { recognises: () => true, inspect: unused, qualities: unused, check: async () => status };
}

/** An upcoming record of its own, scheduled `startsIn` seconds after NOW. */
async function upcoming(id: string, startsIn: number): Promise<void> {
  const record: LivestreamInput = {
    id,
    platform: 'hls',
    sourceUrl: `https://cdn.example/${id}/index.m3u8`,
    status: 'upcoming',
    failureReason: null,
    title: `Stream ${id}`,
    channelName: 'Channel',
    channelId: 'cdn.example',
    thumbnailUrl: null,
    scheduledStart: at(startsIn),
    startedAt: null,
    endedAt: null,
    archive: null,
    submitters: ['local/viewer'],
    requestedQuality: null,
  };
  await db.livestreams.upsertMany([record]);
}

/** These records are upcoming: no capture is kept, nothing is deleted. */
const nothingKept = () => ({ captures: db.captures, store: { delete: () => Promise.reject(new Error('nothing is kept for an upcoming record')) } });

/** Runs the watcher once at NOW on a source that is not live yet; returns its verdict and the next watch it queued. */
async function watchOnce(id: string, status: SourceStatus = { state: 'not_yet' }) {
  const outcome = await watchStream(
    { livestreams: db.livestreams, source: sourceSaying(status), scheduler: jobs, watchLooks: db.watchLooks, ...nothingKept() },
    id,
    policy,
    NOW,
  );
  const watches = await queuedJobs(db, 'watch-stream', id);
  return { outcome, nextLook: watches.length === 1 ? (watches[0]?.startAfter ?? null) : null, watches: watches.length };
}

describe('how soon the watcher looks again', () => {
  it('far before the start: at most an hour later', async () => {
    await upcoming('far-off', 10 * 3600);
    expect(await watchOnce('far-off')).toEqual({ outcome: 'waiting', nextLook: at(3600), watches: 1 });
  });

  it('nearer: at half the time left, so it closes in on the start', async () => {
    await upcoming('twenty-min', 20 * 60);
    expect(await watchOnce('twenty-min')).toEqual({ outcome: 'waiting', nextLook: at(10 * 60), watches: 1 });
  });

  it('within two polls of the start: every poll interval', async () => {
    await upcoming('close', 90);
    expect(await watchOnce('close')).toEqual({ outcome: 'waiting', nextLook: at(60), watches: 1 });
  });

  it('after the start, until the never-live deadline: every poll interval', async () => {
    await upcoming('late', -30 * 60);
    expect(await watchOnce('late')).toEqual({ outcome: 'waiting', nextLook: at(60), watches: 1 });
    await upcoming('at-deadline', -policy.neverLiveSeconds); // the deadline itself still waits
    expect(await watchOnce('at-deadline')).toEqual({ outcome: 'waiting', nextLook: at(60), watches: 1 });
  });

  it('follows a schedule the source moved: the record says the new start, and the next look is from it', async () => {
    await upcoming('moved', -3 * 3600); // past its deadline by the old schedule
    const moved = at(4 * 3600);
    const details = { title: 'Moved karaoke', channelName: 'Channel', channelId: 'cdn.example', scheduledStart: moved, thumbnailUrl: null };
    expect(await watchOnce('moved', { state: 'not_yet', details })).toEqual({ outcome: 'waiting', nextLook: at(3600), watches: 1 });
    expect(await db.livestreams.findById('moved')).toMatchObject({ status: 'upcoming', scheduledStart: moved, title: 'Moved karaoke' });
  });
});

describe('the never-live deadline', () => {
  it('gives up past it, saying why on the record, and looks no more', async () => {
    await upcoming('never', -policy.neverLiveSeconds - 1);
    expect(await watchOnce('never', { state: 'not_yet', reason: 'no playlist yet' })).toEqual({ outcome: 'failed', nextLook: null, watches: 0 });
    expect(await db.livestreams.findById('never')).toMatchObject({
      status: 'failed',
      failureReason: 'No stream appeared within 2 h of the scheduled start (no playlist yet).',
    });
  });

  it('does not give up a stream that went live late: it queues the capture instead', async () => {
    await upcoming('late-live', -policy.neverLiveSeconds - 60);
    expect(await watchOnce('late-live', { state: 'live', playlistUrl: 'https://cdn.example/late-live/index.m3u8' })).toEqual({
      outcome: 'capturing',
      nextLook: null,
      watches: 0,
    });
    expect(await queuedJobs(db, 'capture-stream', 'late-live')).toHaveLength(1);
    expect((await db.livestreams.findById('late-live'))?.status).toBe('upcoming');
  });
});

describe('a look that could not say (decision 0088)', () => {
  const rateLimited: SourceStatus = { state: 'unknown', trouble: 'rate_limited', reason: 'YouTube rate-limits Kura: HTTP Error 429: Too Many Requests' };

  it('is no end: the record waits, its page says why, and each such look waits twice as long as the one before, up to 15 minutes', async () => {
    await upcoming('throttled', -10 * 60);
    expect(await watchOnce('throttled', rateLimited)).toEqual({ outcome: 'waiting', nextLook: at(60), watches: 1 });
    expect((await db.watchLooks.find(['throttled'])).get('throttled')?.reason).toBe(rateLimited.reason);
    expect(await db.livestreams.findById('throttled')).toMatchObject({ status: 'upcoming', failureReason: null });
    // the next look, still throttled: twice the wait (the look kept says when)
    expect((await watchOnce('throttled', rateLimited)).outcome).toBe('waiting');
    expect((await db.watchLooks.find(['throttled'])).get('throttled')?.nextLookAt).toEqual(at(120));
  });

  it('is no end for a null live status either, until the never-live deadline', async () => {
    await upcoming('no-status', -30 * 60);
    expect((await watchOnce('no-status', { state: 'unknown', trouble: 'no_status', reason: 'yt-dlp gave no live status' })).outcome).toBe('waiting');
    expect((await db.livestreams.findById('no-status'))?.status).toBe('upcoming');
  });

  it('queues the capture of a broadcast that ended while it waited, when its fragments are still served (post_live)', async () => {
    await upcoming('post-live', -3600);
    const format = {
      id: '299',
      url: 'https://rr1.example/videoplayback?itag=299',
      mime: 'video/mp4',
      codec: 'avc1',
      width: 1920,
      height: 1080,
      fps: 60,
      bitrate: 6e6,
    };
    const audio = { ...format, id: '140', mime: 'audio/mp4', codec: 'mp4a.40.2', width: null, height: null, fps: null, bitrate: 128e3 };
    const fragments = { video: format, audio, fragmentSeconds: 2, offered: [format, audio] };
    expect(await watchOnce('post-live', { state: 'ended', reason: 'the broadcast has ended (post_live)', fragments })).toMatchObject({ outcome: 'capturing' });
    expect(await queuedJobs(db, 'capture-stream', 'post-live')).toHaveLength(1);
    // processed already: nothing to record, said on the record
    await upcoming('processed', -3600);
    expect((await watchOnce('processed', { state: 'ended', reason: 'was_live' })).outcome).toBe('failed');
  });
});

describe('a members-only stream the cookies do not open', () => {
  // the real YouTube source on the yt-dlp STAND-IN, which answers as yt-dlp 2026.08.19 does with
  // --ignore-no-formats-error: exit 0, no formats, `availability: subscriber_only`, no reason printed
  it('is failed with the reason once live, instead of waiting for formats until the never-live deadline', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'kura-watch-members-'));
    const cookies = path.join(dir, 'cookies.txt');
    const member = '.youtube.com\tTRUE\t/\tTRUE\t1900000000\tSID\tmember-session';
    await writeFile(cookies, '# Netscape HTTP Cookie File\n.youtube.com\tTRUE\t/\tTRUE\t1900000000\tSID\texpired-session\n');
    const state = path.join(dir, 'state.json');
    const says = (liveStatus: string) =>
      writeFile(
        state,
        JSON.stringify({ videos: { kMembers002: { liveStatus, membersOnly: true, hlsUrl: 'http://127.0.0.1:1/m.m3u8' } }, memberCookie: member }),
      );
    process.env.YTDLP_STAND_IN_STATE = state;
    try {
      const source = createYouTubeSource(createYtDlp(ytdlpProgram(YTDLP_STAND_IN, { cookiesFile: cookies })));
      const url = 'https://www.youtube.com/watch?v=kMembers002';
      // upcoming, it lists no formats to a member either: accepted, as before
      await says('is_upcoming');
      const inspection = await source.inspect(url);
      expect(inspection).toMatchObject({ kind: 'accepted', details: { membersOnly: true } });
      if (inspection.kind !== 'accepted') return;
      await db.livestreams.upsertMany([
        {
          id: 'kMembers002',
          platform: 'youtube',
          sourceUrl: url,
          status: 'upcoming',
          failureReason: null,
          title: 'Members karaoke',
          channelName: 'Channel',
          channelId: 'UCabcdefghijklmnopqrstuv',
          thumbnailUrl: null,
          scheduledStart: at(-60),
          startedAt: null,
          endedAt: null,
          archive: null,
          submitters: ['local/viewer'],
          requestedQuality: null,
        },
      ]);
      await says('is_live');
      expect(
        await watchStream({ livestreams: db.livestreams, source, scheduler: jobs, watchLooks: db.watchLooks, ...nothingKept() }, 'kMembers002', policy, NOW),
      ).toBe('failed');
      expect(await db.livestreams.findById('kMembers002')).toMatchObject({
        status: 'failed',
        failureReason: "Members-only: the cookies no longer give access to this stream (KURA_YTDLP_COOKIES must be a current member's cookies).",
      });
      expect(await queuedJobs(db, 'watch-stream', 'kMembers002')).toHaveLength(0);
      expect(await queuedJobs(db, 'capture-stream', 'kMembers002')).toHaveLength(0);
      // with a member's cookies the same live stream is captured
      await writeFile(cookies, `# Netscape HTTP Cookie File\n${member}\n`);
      expect(await source.check(url, null)).toMatchObject({ state: 'live', playlistUrl: 'http://127.0.0.1:1/m.m3u8' });
    } finally {
      delete process.env.YTDLP_STAND_IN_STATE;
      await rm(dir, { recursive: true, force: true });
    }
  });
});
