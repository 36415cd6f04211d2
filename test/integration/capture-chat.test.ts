import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCaptureRepo } from '../../src/adapters/db/capture-repo.js';
import { createChatRepo } from '../../src/adapters/db/chat-repo.js';
import { noteWorkerSession } from '../../src/adapters/db/worker-session.js';
import pg from 'pg';
import { captureChat } from '../../src/core/chat/capture-chat.js';
import type { ChatMessage } from '../../src/core/chat/chat.js';
import type { ChatSource } from '../../src/core/chat/ports.js';
import type { CaptureRepo } from '../../src/core/capture/ports.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

// The chat job against real PostgreSQL, with a DOUBLE of the chat source (yt-dlp's end to end
// run is test/e2e/youtube-chat.test.ts): when it stops, and what a failure touches.
let db: TestDatabase;
let captures: CaptureRepo;
const chats = () => createChatRepo(db.pool);

beforeAll(async () => {
  db = await createTestDatabase();
  captures = createCaptureRepo(db.pool);
});
afterAll(() => db.drop());

async function liveYouTubeRecord(id: string, platform: 'youtube' | 'twitch' | 'site' = 'youtube'): Promise<void> {
  await db.livestreams.upsertMany([
    {
      id,
      platform,
      sourceUrl: platform === 'youtube' ? `https://www.youtube.com/watch?v=${id}` : `https://www.twitch.tv/alice#kura-broadcast=${id}`,
      status: 'live',
      failureReason: null,
      title: id,
      channelName: 'Channel',
      channelId: 'UCfixture0000000000000001',
      thumbnailUrl: null,
      scheduledStart: new Date(),
      startedAt: new Date(),
      endedAt: null,
      archive: null,
      submitters: ['local/a'],
      requestedQuality: null,
    },
  ]);
  await captures.claim(id, 'video-worker', 30);
}

const message = (n: number): ChatMessage => ({
  id: `m${n}`,
  sentAt: new Date(Date.now() + n),
  author: { name: `Viewer ${n}`, channelId: 'UCv', badges: [] },
  text: `message ${n}`,
  emojis: [],
  paid: null,
});
/** A chat that sends `count` messages, then waits until told to stop. */
const chattering = (count: number, sent: () => void): ChatSource => ({
  follow: (_url, onMessage, signal) =>
    new Promise((resolve) => {
      for (let n = 0; n < count; n++) onMessage(message(n));
      sent();
      signal.addEventListener('abort', () => resolve('ended'));
    }),
});
const notFollowed: ChatSource = { follow: () => Promise.reject(new Error('this platform’s chat source was asked')) };
/** The chat sources of a YouTube record's test: Twitch's is never asked. */
const onlyYouTube = (youtube: ChatSource) => ({ youtube, twitch: notFollowed });
const worker = (signal = new AbortController().signal) => ({ workerId: 'chat-worker', staleAfterSeconds: 3, signal, flushMs: 50 });

describe('the capture-chat job', () => {
  it('stores the chat as it arrives and stops when the video capture ends', async () => {
    await liveYouTubeRecord('chatjob0001');
    let sent!: () => void;
    const allSent = new Promise<void>((resolve) => (sent = resolve));
    const job = captureChat({ livestreams: db.livestreams, chats: chats(), chatSources: onlyYouTube(chattering(5, sent)) }, 'chatjob0001', worker());
    await allSent;
    await captures.end('chatjob0001', 'endlist');
    await job;
    expect(await chats().count('chatjob0001')).toBe(5);
    expect(await chats().state('chatjob0001')).toEqual({ state: 'ended', held: false, detail: null, filedAt: null });
  });

  it('keeps what arrived when the chat fails, gives its lease up for the retry, and leaves the record alone', async () => {
    await liveYouTubeRecord('chatjob0002');
    const failing: ChatSource = {
      follow: async (_url, onMessage) => {
        onMessage(message(1));
        onMessage(message(2));
        throw new Error('yt-dlp could not follow the chat: HTTP Error 403');
      },
    };
    await expect(captureChat({ livestreams: db.livestreams, chats: chats(), chatSources: onlyYouTube(failing) }, 'chatjob0002', worker())).rejects.toThrow(
      /HTTP Error 403/,
    );
    expect(await chats().count('chatjob0002')).toBe(2);
    expect(await chats().state('chatjob0002')).toEqual({
      state: 'capturing',
      held: false,
      detail: 'yt-dlp could not follow the chat: HTTP Error 403',
      filedAt: null,
    });
    expect((await db.livestreams.findById('chatjob0002'))?.status).toBe('live');
    expect((await captures.get('chatjob0002'))?.state).toBe('capturing');

    // the retry resumes: the messages it fetches again are stored once
    let sent!: () => void;
    const allSent = new Promise<void>((resolve) => (sent = resolve));
    const retry = captureChat({ livestreams: db.livestreams, chats: chats(), chatSources: onlyYouTube(chattering(4, sent)) }, 'chatjob0002', worker());
    await allSent;
    await captures.end('chatjob0002', 'endlist');
    await retry;
    expect(await chats().count('chatjob0002')).toBe(4); // m0..m3, m1 and m2 once
  });

  it('marks a stream whose chat is off as having none, and leaves a held chat to its worker', async () => {
    await liveYouTubeRecord('chatjob0003');
    const off: ChatSource = { follow: async () => 'none' };
    await captureChat({ livestreams: db.livestreams, chats: chats(), chatSources: onlyYouTube(off) }, 'chatjob0003', worker());
    expect((await chats().state('chatjob0003'))?.state).toBe('none');

    await liveYouTubeRecord('chatjob0004');
    expect(await chats().claim('chatjob0004', 'another-worker', 30)).toBe(true);
    const unused: ChatSource = { follow: () => Promise.reject(new Error('not followed twice')) };
    await captureChat({ livestreams: db.livestreams, chats: chats(), chatSources: onlyYouTube(unused) }, 'chatjob0004', worker());
    expect(await chats().state('chatjob0004')).toEqual({ state: 'capturing', held: true, detail: null, filedAt: null });
  });
});

describe('the chat of a record of another platform', () => {
  it("is read by the record's platform's source (Twitch's); a site's record has none to capture", async () => {
    await liveYouTubeRecord('twitch-1001', 'twitch');
    const asked: string[] = [];
    const twitch: ChatSource = {
      follow: async (url, onMessage) => {
        asked.push(url);
        onMessage(message(1));
        return 'ended';
      },
    };
    await captureChat({ livestreams: db.livestreams, chats: chats(), chatSources: { youtube: notFollowed, twitch } }, 'twitch-1001', worker());
    expect(asked).toEqual(['https://www.twitch.tv/alice#kura-broadcast=twitch-1001']);
    expect(await chats().count('twitch-1001')).toBe(1);
    expect((await chats().state('twitch-1001'))?.state).toBe('ended');

    await liveYouTubeRecord('site-1002', 'site');
    await captureChat({ livestreams: db.livestreams, chats: chats(), chatSources: { youtube: notFollowed, twitch: notFollowed } }, 'site-1002', worker());
    expect(await chats().state('site-1002')).toBeNull();
  });
});

describe('a chat whose worker died', () => {
  it("is taken over at once, not when its lease goes stale: its worker's database session ended", async () => {
    await liveYouTubeRecord('chatjob0005');
    const dead = new pg.Client({ connectionString: db.url });
    await dead.connect();
    await noteWorkerSession(dead, 'dead-worker');
    expect(await chats().claim('chatjob0005', 'dead-worker', 30)).toBe(true);
    expect(await chats().claim('chatjob0005', 'another-worker', 30)).toBe(false); // held, fresh
    await dead.end(); // the process died: PostgreSQL ends its session
    await expect.poll(async () => (await captures.leases(30)).stale).toContainEqual({ livestreamId: 'chatjob0005', state: 'chat' });
    expect(await chats().claim('chatjob0005', 'another-worker', 30)).toBe(true);
  });
});

describe("the archive's 0 s, where chat messages are placed", () => {
  /** Stores `segments` as recorded, each fetched at `at` (ms since the epoch). */
  async function recorded(id: string, segments: Array<{ sequence: number; seconds: number; at: number }>): Promise<void> {
    for (const [i, segment] of segments.entries()) {
      await captures.recordSegment(id, { sequence: segment.sequence, part: 1, endOffset: (i + 1) * 100, durationSeconds: segment.seconds }, []);
      await db.pool.query('update capture_segments set fetched_at = $3 where livestream_id = $1 and sequence = $2', [
        id,
        segment.sequence,
        new Date(segment.at),
      ]);
    }
  }
  const T0 = Date.parse('2026-11-27T12:00:00Z');

  it('is the first segment live, for a capture of a playlist: when the promptest of its first segments was fetched, less the media before its end', async () => {
    await liveYouTubeRecord('startHls001');
    // the first playlist listed three segments of 2 s at once, fetched 6 s after the first began (the third was 0.2 s old); the next came as made
    await recorded('startHls001', [
      { sequence: 40, seconds: 2, at: T0 + 6_000 },
      { sequence: 41, seconds: 2, at: T0 + 6_100 },
      { sequence: 42, seconds: 2, at: T0 + 6_200 },
      { sequence: 43, seconds: 2, at: T0 + 8_300 },
    ]);
    expect((await chats().archiveStart('startHls001'))?.getTime()).toBe(T0 + 200);
  });

  it("is the broadcast's start, for a capture of fragments found late: told by its fragments fetched at the live edge, not by those caught up on", async () => {
    await liveYouTubeRecord('startFrag01');
    await captures.setFragmentFormats('startFrag01', { video: '299', audio: '140', fragmentSeconds: 5 });
    // found ten minutes in: fragments 0-119 fetched within a second of each other, then each as it was made (fragment n ends at 5(n + 1) s)
    const caughtUp = Array.from({ length: 120 }, (_, n) => [
      { sequence: 2 * n, seconds: 5, at: T0 + 600_000 + n * 5 },
      { sequence: 2 * n + 1, seconds: 0, at: T0 + 600_000 + n * 5 + 2 },
    ]).flat();
    const live = Array.from({ length: 20 }, (_, i) => [
      { sequence: 2 * (120 + i), seconds: 5, at: T0 + (121 + i) * 5_000 + 700 },
      { sequence: 2 * (120 + i) + 1, seconds: 0, at: T0 + (121 + i) * 5_000 + 720 },
    ]).flat();
    await recorded('startFrag01', [...caughtUp, ...live]);
    // within a second (the newest fragment caught up on was fetched 0.6 s after it was made), not ten minutes late
    expect((await chats().archiveStart('startFrag01'))?.getTime()).toBe(T0 + 595);
  });
});
