import { readdir, readFile, chmod, mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { launchBrowser, seriousViolations } from '../support/browser.js';
import { runKura, spawnKura, type KuraProcess } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { SEGMENT_REQUEST, startHlsFixture, type HlsFixture } from '../support/hls-fixture.js';
import { waitForRecord } from '../support/records.js';
import { e2eEnv } from '../support/serve-env.js';
import { ytDlpStandIn } from '../support/yt-dlp-state.js';

// A YouTube stream's live chat, end to end: the yt-dlp STAND-IN (test/support/bin) writes
// live_chat.json in yt-dlp's format while the stream is live (message n at n × 250 ms); Kura is
// killed (SIGKILL) mid-stream and started again; the chat is then served by time window, as the
// archive's gzip-encoded chat file, and beside the player in the browser.
const VIDEO_ID = 'chatE2eTest';
const EVERY_MS = 250;
/** A message shown in the chat panel beside the player, its offset in `data-offset`. */
const SHOWN_MESSAGE = '[data-testid="chat-panel"] li[data-offset]';
let db: TestDatabase;
let cwd: string;
let fixture: HlsFixture;
let kura: KuraProcess | null = null;
let api = '';

interface Line {
  id: string;
  offset: number;
  time: string;
  author: { name: string; channelId: string; badges: string[] };
  text: string;
  paid?: { amount: number; currency: string };
}
const numberOf = (line: { text: string }) => Number(/^message (\d+)/.exec(line.text)?.[1]);

beforeAll(async () => {
  db = await createTestDatabase();
  cwd = await mkdtemp(path.join(os.tmpdir(), 'kura-chat-'));
  await chmod(cwd, 0o755);
});
afterAll(async () => {
  kura?.child.kill('SIGKILL');
  await kura?.exited;
  await fixture?.close();
  await db.drop();
  await rm(cwd, { recursive: true, force: true });
});

const env = () => e2eEnv(db.url, path.join(cwd, 'data'), ytDlpStandIn(cwd).env);
const youtubeSays = (state: object) => ytDlpStandIn(cwd).says(state);
async function serve(): Promise<void> {
  kura = spawnKura(['serve'], env(), cwd);
  api = (await kura.waitForLog((l) => l.msg === 'kura api listening')).url as string;
}
/** The messages yt-dlp had written for Kura when it was killed. */
async function writtenByYtDlp(): Promise<Array<{ n: number; sentAt: number }>> {
  const root = path.join(cwd, 'data', 'spool', 'chats');
  const [folder] = (await readdir(root)).filter((name) => name.startsWith(`${VIDEO_ID}.`));
  const text = await readFile(path.join(root, folder as string, 'chat.live_chat.json'), 'utf8');
  return text
    .split('\n')
    .filter((l) => l.includes('addChatItemAction'))
    .map((l) => {
      const item = JSON.parse(l).replayChatItemAction.actions[0].addChatItemAction.item;
      const renderer = item.liveChatTextMessageRenderer ?? item.liveChatPaidMessageRenderer;
      return { n: Number(/message (\d+)/.exec(renderer.message.runs[0].text)?.[1]), sentAt: Number(renderer.timestampUsec) / 1000 };
    });
}
/** The yt-dlp processes following a chat for this test's server (their pids). */
async function chatFollowersRunning(): Promise<string[]> {
  const running: string[] = [];
  for (const pid of (await readdir('/proc')).filter((name) => /^\d+$/.test(name))) {
    const command = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (command.includes('live_chat') && command.includes(cwd)) running.push(pid);
  }
  return running;
}
/** Which of `pids` still run once the kernel had time to end them (a process's death is no event a test can await). */
async function chatFollowersLeft(pids: string[]): Promise<string[]> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const left = (await chatFollowersRunning()).filter((pid) => pids.includes(pid));
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
/** Resolves once PostgreSQL holds `count` chat messages numbered above `above` (chat batches send no notification: read every 100 ms). */
async function chatStoredAbove(above: number, count: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const { rows } = await db.pool.query<{ n: number }>(
      `select count(*)::int as n from chat_messages where livestream_id = $1 and substring(body from '^message (\\d+)')::bigint > $2`,
      [VIDEO_ID, above],
    );
    if ((rows[0]?.n ?? 0) >= count) return;
    if (Date.now() > deadline) throw new Error(`the restarted server stored ${rows[0]?.n} chat messages after message ${above}, not ${count}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
/** The chat served while the stream is recorded, once it holds `count` messages (the chat's yt-dlp may start seconds after the capture on a loaded machine). */
async function chatServedWhileLive(count: number): Promise<{ state: string; messages: Line[] }> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const chat = (await fetch(`${api}/api/video/${VIDEO_ID}/chat?from=-60&to=600`).then((r) => r.json())) as { state: string; messages: Line[] };
    if (chat.messages.length >= count || Date.now() > deadline) return chat;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
/** Reads `read` every 200 ms until `done` holds of what it read (beforeAll has no expect.poll); throws `why` after `ms`. */
async function waitUntil<T>(read: () => Promise<T>, done: (value: T) => boolean, ms: number, why: string): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${why} (${ms / 1000} s; last read ${JSON.stringify(value)})`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
/** The longest stretch of `lines` (in offset order) in which no second passes without a message. */
function longestStretch(lines: Line[]): { start: number; end: number } {
  let best = { start: 0, end: 0 };
  let start = lines[0]?.offset ?? 0;
  for (const [i, line] of lines.entries()) {
    const previous = lines[i - 1];
    if (previous !== undefined && line.offset - previous.offset > 1) start = line.offset;
    if (line.offset - start > best.end - best.start) best = { start, end: line.offset };
  }
  return best;
}
/**
 * The archive page while the stream is recorded: the live player playing (played again should it
 * be paused: what it plays, not where, is this test's subject; the live edge is web-ui's), and the
 * chat shown up to its position as it advances.
 */
async function watchLive(page: Page) {
  await page.goto(`${api}/archive/${VIDEO_ID}`);
  const player = page.locator('[data-testid=player][data-mode=live]');
  const explained = (error: Error) =>
    player
      .evaluate((video: HTMLVideoElement) => ({
        paused: video.paused,
        currentTime: video.currentTime,
        readyState: video.readyState,
        buffered: video.buffered.length > 0 ? [video.buffered.start(0), video.buffered.end(video.buffered.length - 1)] : null,
        seekableEnd: video.seekable.length > 0 ? video.seekable.end(video.seekable.length - 1) : null,
        error: video.error?.message ?? null,
        chat: [...document.querySelectorAll('[data-testid="chat-panel"] li')].slice(-2).map((li) => li.outerHTML.slice(0, 120)),
      }))
      .then((state) => {
        throw new Error(`${error.message}; the player: ${JSON.stringify(state)}`);
      });
  /** Where the player is, after asking it to play if it is paused (a page may play by itself only muted). */
  const playing = () =>
    player.evaluate((video: HTMLVideoElement) => {
      video.muted = true;
      if (video.paused) void video.play().catch(() => undefined);
      return video.currentTime;
    });
  await waitUntil(playing, (at) => at > 0, 45_000, 'the live player never played').catch(explained);
  const lastShown = async () => Number(await page.locator(SHOWN_MESSAGE).last().getAttribute('data-offset', { timeout: 10_000 }));
  const first = await lastShown();
  // the newest message stored once the panel showed `first`: the panel must go past it, so it asks
  // again for the minute at hand while the stream is recorded, not only once
  const storedThen = (await chatServedWhileLive(0)).messages.at(-1)?.offset ?? first;
  const advanced = async () => {
    await playing();
    return lastShown();
  };
  await waitUntil(
    advanced,
    (offset) => offset > Math.max(first + 1, storedThen),
    30_000,
    `the chat shown stayed at ${first} (stored then: ${storedThen})`,
  ).catch(explained);
  const shown = await lastShown();
  const playhead = await player.evaluate((video: HTMLVideoElement) => video.currentTime);
  return { first, shown, playhead, violations: await seriousViolations(page) };
}
function gzipDownload(url: string): Promise<{ status: number; encoding: string | undefined; type: string | undefined; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { 'accept-encoding': 'gzip' } }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (c: Buffer) => chunks.push(c));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            encoding: response.headers['content-encoding'],
            type: response.headers['content-type'],
            body: Buffer.concat(chunks),
          }),
        );
      })
      .on('error', reject);
  });
}

describe('the live chat of a YouTube stream (yt-dlp stand-in)', () => {
  let lines: Line[] = [];
  let encodingStartedAt = 0;
  let onAirAt = 0;
  let killedAt = 0;
  let whileLive: { state: string; messages: Line[] } = { state: '', messages: [] };
  let watchedLive: Awaited<ReturnType<typeof watchLive>>;
  let followersBeforeKill: string[] = [];
  let followersAfterKill: string[] = [];
  let written: Array<{ n: number; sentAt: number }> = [];
  let download: Awaited<ReturnType<typeof gzipDownload>>;

  // one recording for the file: the stream is captured, the server killed mid-stream and started
  // again, the record finished; each test then checks one thing a viewer relies on. The broadcast
  // ends once the restarted server has stored a stretch of chat (its length bounds the wait), so
  // how long the browser and the restart took on a loaded machine does not decide what is there.
  beforeAll(async () => {
    fixture = await startHlsFixture({ seconds: 180 });
    await serve();
    encodingStartedAt = Date.now();
    const encoded = fixture.start();
    await fixture.onAir();
    onAirAt = Date.now();
    await youtubeSays({ liveStatus: 'is_live', releaseTimestamp: Math.floor(Date.now() / 1000), hlsUrl: fixture.url, chat: { everyMs: EVERY_MS } });
    expect((await runKura(['archive', `https://www.youtube.com/watch?v=${VIDEO_ID}`], env(), cwd)).code).toBe(0);

    // mid-stream: the chat so far is in PostgreSQL and beside the live player; then the server dies without a word
    const browser = await launchBrowser();
    try {
      await fixture.seen(SEGMENT_REQUEST, 6);
      whileLive = await chatServedWhileLive(6);
      watchedLive = await watchLive(await browser.newPage());
    } finally {
      await browser.close();
    }
    followersBeforeKill = await chatFollowersRunning();
    killedAt = Date.now();
    kura?.child.kill('SIGKILL');
    await kura?.exited;
    written = await writtenByYtDlp();
    followersAfterKill = await chatFollowersLeft(followersBeforeKill);
    await serve();
    await chatStoredAbove(Math.max(...written.map((m) => m.n)), 16);
    await fixture.finish();
    await encoded;
    await youtubeSays({ liveStatus: 'was_live', releaseTimestamp: Math.floor(Date.now() / 1000) });
    const done = await waitForRecord(db.url, VIDEO_ID, (r) => r.status === 'finished' || r.status === 'failed');
    expect(done.status, done.failure_reason ?? '').toBe('finished');
    download = await gzipDownload(`${api}/api/download/${VIDEO_ID}/chat`);
    lines =
      download.status === 200
        ? gunzipSync(download.body)
            .toString('utf8')
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l) as Line)
        : [];
  }, 300_000);

  it('is stored as it arrives, survives a SIGKILL of the worker without duplicates, and is archived as gzip NDJSON', async () => {
    expect(download.status).toBe(200);
    expect(download.encoding).toBe('gzip');
    expect(download.type).toMatch(/^application\/x-ndjson/);
    expect(written.length).toBeGreaterThan(10);
    // served while the stream was recorded
    expect(whileLive.state).toBe('capturing');
    expect(whileLive.messages.length).toBeGreaterThan(5);
    // finalized, the archive keeps its chat in the file alone: no row a message, nor a segment (decision 0112)
    const rows = await db.pool.query<{ messages: number; segments: number }>(
      `select (select count(*)::int from chat_messages where livestream_id = $1) as messages,
              (select count(*)::int from capture_segments where livestream_id = $1) as segments`,
      [VIDEO_ID],
    );
    expect(rows.rows[0]).toEqual({ messages: 0, segments: 0 });
    expect(new Set(lines.map((l) => l.id)).size).toBe(lines.length); // the resumed chat fetched its last moments again: kept once

    // what Kura had received before the kill is kept, but for its last seconds (stored once a second)
    const kept = new Set(lines.map(numberOf));
    const lost = written.filter((m) => !kept.has(m.n));
    expect(
      lost.every((m) => m.sentAt > killedAt - 2500),
      `lost: ${JSON.stringify(lost)}`,
    ).toBe(true);
    // and after the restart, nothing is missing up to the chat's end
    const resumed = lines.map(numberOf).filter((n) => n > Math.max(...written.map((m) => m.n)));
    expect(resumed.length).toBeGreaterThan(10);
    for (let n = Math.min(...resumed); n <= Math.max(...resumed); n++) expect(kept.has(n), `message ${n}`).toBe(true);

    // each message as YouTube described it: badges, emoji as text, Super Chats with their amount
    const byNumber = new Map(lines.map((l) => [numberOf(l), l]));
    const member = [...byNumber.entries()].find(([n]) => n % 5 === 0 && n % 7 !== 0 && n % 11 !== 0)?.[1];
    expect(member).toMatchObject({ author: { badges: ['member'] }, emojis: [{ shortcut: ':_wave:' }] });
    expect(member?.text).toMatch(/^message \d+ 🎤 :_wave:$/);
    const superChat = [...byNumber.entries()].find(([n]) => n % 13 === 0 && n % 26 !== 0)?.[1];
    expect(superChat?.paid).toEqual({ amount: 1000, currency: 'JPY', text: '¥1,000' });
    const owner = [...byNumber.entries()].find(([n]) => n % 11 === 0)?.[1];
    expect(owner?.author).toEqual({ name: 'Fixture Channel', channelId: 'UCfixture0000000000000001', badges: ['owner'] });
    // offsets count from the archive's first segment, which began after the encoder was started and
    // before its playlist appeared (a loaded machine takes seconds to start ffmpeg: the span says when)
    const first = lines[0] as Line;
    const archiveStart = Date.parse(first.time) - first.offset * 1000;
    expect(archiveStart).toBeGreaterThan(encodingStartedAt - 1000);
    expect(archiveStart).toBeLessThan(onAirAt + 1000);
  });

  it('leaves no yt-dlp following the chat when its worker is killed', () => {
    expect(followersBeforeKill).toHaveLength(1);
    expect(followersAfterKill).toEqual([]);
  });

  it('shows the chat beside the live player while the stream is recorded, growing with playback', () => {
    expect(watchedLive.shown).toBeGreaterThan(watchedLive.first + 1);
    // in step with the player: nothing after its position (a message is shown once the playhead passed it)
    expect(watchedLive.shown).toBeLessThanOrEqual(watchedLive.playhead);
    expect(watchedLive.playhead).toBeGreaterThan(0);
    expect(watchedLive.violations).toEqual([]);
  });

  it('serves a time window of the archive (bounded pages, bad windows refused) and the activity per minute', async () => {
    // five seconds inside the chat's longest stretch without a hole (the restart left one, of a
    // length that depends on how fast the server came back; the stretch before the kill is long)
    const to = Math.floor(longestStretch(lines).end) - 1;
    const window = await fetch(`${api}/api/video/${VIDEO_ID}/chat?from=${to - 5}&to=${to}`).then((r) => r.json());
    const expected = lines.filter((l) => l.offset >= to - 5 && l.offset < to);
    expect(window.state).toBe('ended');
    expect(window.messages.map((m: Line) => m.id)).toEqual(expected.map((l) => l.id));
    expect(expected.length).toBeGreaterThan(10);
    const page = await fetch(`${api}/api/video/${VIDEO_ID}/chat?from=${to - 5}&to=${to}&limit=3`).then((r) => r.json());
    expect(page.messages).toHaveLength(3);
    expect(page.next).toBe(page.messages[2].offset);

    for (const query of ['from=10&to=5', 'from=abc', 'limit=100000', 'from=1e3', 'to=Infinity']) {
      const refused = await fetch(`${api}/api/video/${VIDEO_ID}/chat?${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect((await refused.json()).code).toBe('invalid_parameter');
    }
    expect((await fetch(`${api}/api/video/nope/chat`)).status).toBe(404);

    const activity = await fetch(`${api}/api/video/${VIDEO_ID}/chat/activity`).then((r) => r.json());
    expect(activity.perMinute.reduce((a: number, b: number) => a + b, 0)).toBe(lines.filter((l) => l.offset >= 0).length);
  });

  it('shows the chat beside the player in step with it', async () => {
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      await page.goto(`${api}/archive/${VIDEO_ID}`);
      const player = page.getByTestId('player');
      await player.evaluate(
        (video: HTMLVideoElement) => new Promise((resolve) => (video.readyState >= 1 ? resolve(null) : video.addEventListener('loadedmetadata', resolve))),
      );
      // forward, then back, inside the chat's longest stretch without a hole (when the chat began depends on the machine's load)
      const stretch = longestStretch(lines);
      expect(stretch.end - stretch.start).toBeGreaterThan(6);
      for (const at of [Math.floor(stretch.end) - 1, Math.floor(stretch.end) - 5]) {
        await player.evaluate((video: HTMLVideoElement, seconds) => {
          video.currentTime = seconds;
        }, at);
        const last = page.locator(SHOWN_MESSAGE).last();
        const shownUpTo = lines.filter((l) => l.offset <= at).at(-1) as Line;
        await expect.poll(() => last.getAttribute('data-offset')).toBe(String(shownUpTo.offset));
        await expect.poll(() => last.textContent()).toContain(shownUpTo.text.split(' 🎤')[0]);
      }
      await expect.poll(() => page.getByTestId('chat-activity').count()).toBe(1);
      expect(await seriousViolations(page)).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
