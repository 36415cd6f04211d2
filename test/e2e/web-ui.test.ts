import { spawn } from 'node:child_process';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { YTDLP_STAND_IN } from '../support/app.js';
import { freePort, logInOnPage, screenshot, seriousViolations, VIEWPORTS } from '../support/browser.js';
import { prepareBrowserKura, type BrowserKura } from '../support/browser-kura.js';
import { runKura } from '../support/cli.js';
import type { TestDatabase } from '../support/database.js';
import { buildRecord, buildRecords } from '../support/factories.js';
import { testCodecs, testSignal } from '../support/ffmpeg-args.js';
import { startHlsFixture, type HlsFixture } from '../support/hls-fixture.js';
import { waitForRecord } from '../support/records.js';
import { createFsStore } from '../../src/adapters/storage/fs-store.js';
import { objectKeys } from '../../src/core/archive/object-keys.js';
import { finishedRecord, putObject, storeArchive } from '../support/archives.js';

// The web UI in Debian's Chromium against a real `kura serve` (its own process, real PostgreSQL),
// recording a live HLS fixture that a yt-dlp STAND-IN presents as a YouTube livestream.
// The tests share one server, and each reads only what it makes or what beforeAll put there: the
// first records a stream and plays its archive; the others browse the imported history and an
// archive stored beforehand, so one test failing never fails the next.
const VIDEO_ID = 'uiTestVid01';
/** An imported upcoming stream a year away; the lifecycle sweep watches it like any other, so the stand-in answers for it as its own video. */
const FAR_ID = 'farUpcoming';
const FAR_TITLE = 'A stream next year';
const TITLE = '【歌枠】Karaoke night 🎤 #42';
const IMPORTED = 60;
/** A finished archive stored before the tests (video and thumbnail), which the history, search and page tests browse. */
const STORED_ID = 'uiStored001';
const STORED_TITLE = '【歌枠】Midnight serenade 🎤 #41';
const STORED_CHANNEL = 'Stored Ch. 試験';
let served: BrowserKura;
let db: TestDatabase;
let cwd: string;
let api: string;
let env: () => Record<string, string>;
let stateFile: string;
let fixture: HlsFixture;
let browser: Browser;

const youtubeSays = (state: { liveStatus: string; releaseTimestamp?: number; hlsUrl?: string; thumbnailUrl?: string }) =>
  writeFile(
    stateFile,
    JSON.stringify({
      ...state,
      videos: { [FAR_ID]: { liveStatus: 'is_upcoming', releaseTimestamp: Math.floor(Date.now() / 1000) + 365 * 86_400, title: FAR_TITLE } },
    }),
  );

/** VIDEO_ID is upcoming, 45 s from now, with the fixture's poster: the watcher checks at half the time left, so it finds it live soon after the switch. */
const youtubeSaysUpcoming = () =>
  youtubeSays({
    liveStatus: 'is_upcoming',
    releaseTimestamp: Math.floor(Date.now() / 1000) + 45,
    thumbnailUrl: fixture.url.replace('index.m3u8', 'poster.jpg'),
  });

function ffmpeg(args: string[]): Promise<number | null> {
  const child = spawn('ffmpeg', ['-v', 'error', ...args]);
  return new Promise((resolve) => child.on('close', resolve));
}

const ffmpegPoster = (file: string) => ffmpeg(['-f', 'lavfi', '-i', 'testsrc=size=640x360', '-frames:v', '1', '-y', file]);

/** Stores STORED_ID as an archive imported with its files: a playable 4 s MP4 and its thumbnail, and the finished record. */
async function storePlayableArchive(): Promise<void> {
  const video = path.join(cwd, 'stored.mp4');
  const poster = path.join(cwd, 'stored.jpg');
  const encode = [
    ...testSignal('testsrc=size=320x180:rate=30', 4, { silent: true }),
    ...testCodecs({ silent: true }),
    '-pix_fmt',
    'yuv420p',
    '-movflags',
    '+faststart',
    video,
  ];
  expect(await ffmpeg(encode)).toBe(0);
  expect(await ffmpegPoster(poster)).toBe(0);
  const store = createFsStore(path.join(cwd, 'data', 'archive'));
  const videoBytes = await readFile(video);
  const stored = await putObject(store, objectKeys.video(STORED_ID), videoBytes);
  await putObject(store, objectKeys.thumbnail(STORED_ID), await readFile(poster));
  const archive = {
    fileSizeBytes: stored.bytes,
    lengthSeconds: 4,
    videoKey: objectKeys.video(STORED_ID),
    logKey: null,
    thumbnailKey: objectKeys.thumbnail(STORED_ID),
    sha256: stored.sha256,
    externalUrl: null,
  };
  const record = finishedRecord(STORED_ID, archive);
  await db.livestreams.upsertMany([
    { ...record, title: STORED_TITLE, channelName: STORED_CHANNEL, channelId: 'stored-channel', scheduledStart: new Date('2025-06-01T12:00:00Z') },
  ]);
}

async function loggedInContext(viewport: { width: number; height: number }, colorScheme: 'light' | 'dark'): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport, baseURL: api, colorScheme });
  const response = await context.request.post('/auth/local', { data: { username: 'alice', password: 'alice-password-1' }, headers: { origin: api } });
  expect(response.status()).toBe(200);
  return context;
}

beforeAll(async () => {
  served = await prepareBrowserKura('kura-web-', (dir) => ({
    YTDLP_PATH: YTDLP_STAND_IN,
    YTDLP_STAND_IN_STATE: path.join(dir, 'yt-dlp-state.json'),
    KURA_CAPTURE_IDLE_SECONDS: '6',
  }));
  ({ db, cwd, api, env } = served);
  await chmod(cwd, 0o755);
  stateFile = path.join(cwd, 'yt-dlp-state.json');
  // at most 120 s: the broadcast ends (finish) once the live page was watched, however long a loaded machine took to get there
  fixture = await startHlsFixture({ seconds: 120 });
  expect(await ffmpegPoster(path.join(fixture.dir, 'live', 'poster.jpg'))).toBe(0);
  // what YouTube says of the videos from the start (the imported upcoming one is watched at once);
  // the first test says it again, its stream 45 s from when that test begins
  await youtubeSaysUpcoming();
  // imported history: no thumbnails (the test browser fetches nothing off this machine), except
  // the newest and the upcoming one, whose thumbnail host is gone (a closed port on this machine)
  const importFile = path.join(cwd, 'import.json');
  const gone = `http://127.0.0.1:${await freePort()}/gone.jpg`;
  const upcoming = buildRecord(
    {
      id: FAR_ID,
      finished: false,
      title: FAR_TITLE,
      thumbnail: gone,
      scheduledStart: new Date(Date.now() + 365 * 86_400_000).toISOString(),
    },
    999,
  );
  const imported = buildRecords(IMPORTED).map((r, i) => ({ ...r, thumbnail: i === IMPORTED - 1 ? gone : '' }));
  await writeFile(importFile, JSON.stringify([...imported, upcoming]));
  expect((await runKura(['import', importFile], env(), cwd)).code).toBe(0);
  await storePlayableArchive();
  expect((await runKura(['user', 'add', 'alice', '--admin'], env(), cwd, 'alice-password-1\n')).code).toBe(0);
  ({ browser } = await served.start());
}, 120_000);

afterAll(async () => {
  await fixture?.close();
  await served?.stop();
});

const textOf = (page: Page, selector: string) => page.locator(selector).first().innerText();
/** The natural width of the first image `selector` finds once it loaded; 0 before (or while none is shown). */
const loadedWidth = (page: Page, selector: string) =>
  page
    .locator(selector)
    .first()
    .evaluate((img: HTMLImageElement) => (img.complete ? img.naturalWidth : 0), undefined, { timeout: 1000 })
    .catch(() => 0);

/** What a <video> is doing: where it plays, what it holds, whether it waits or failed. */
const playerState = (video: Locator) =>
  video.evaluate((v: HTMLVideoElement) => ({
    currentTime: v.currentTime,
    buffered: Array.from({ length: v.buffered.length }, (_, i) => [v.buffered.start(i), v.buffered.end(i)]),
    readyState: v.readyState,
    networkState: v.networkState,
    paused: v.paused,
    error: v.error?.message ?? null,
  }));

/** How far the capture of VIDEO_ID has come, as its worker recorded it. */
const captureState = async () =>
  (await db.pool.query('select state, next_sequence, heartbeat_at from captures where livestream_id = $1', [VIDEO_ID])).rows[0] ?? null;

/**
 * Opens the archive page of the stream being recorded in a page of its own: it plays the live
 * playlist at the live edge, rewinds to the start, and is left paused at 4 s. `switchedToArchive`
 * then checks that, once the record is finished, the same <video> plays the archive from there.
 */
async function watchWhileRecording(): Promise<{ switchedToArchive(): Promise<void> }> {
  const page = await browser.newPage({ viewport: VIEWPORTS.desktop, baseURL: api });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  const scripts: string[] = [];
  const playlists: string[] = [];
  const archiveFetches: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (request.resourceType() === 'script') scripts.push(url.pathname);
    if (url.pathname.endsWith('/live.m3u8')) playlists.push(url.search);
    if (url.pathname === `/api/download/${VIDEO_ID}/video` && request.resourceType() !== 'media') archiveFetches.push(request.resourceType());
  });
  await page.goto(`/archive/${VIDEO_ID}`);
  const video = page.locator('[data-testid=player][data-mode=live]');
  await video.evaluate((v: HTMLVideoElement) => {
    v.dataset.marker = 'the element of the live playback';
    v.muted = true;
  });
  // play, as a viewer presses play again when the first press came while the player was still
  // loading its source (a loaded machine's hls.js attaches late, and cuts that play() short)
  await expect
    .poll(
      () =>
        video.evaluate((v: HTMLVideoElement) =>
          v.paused
            ? v.play().then(
                () => false,
                () => true,
              )
            : false,
        ),
      { timeout: 30_000 },
    )
    .toBe(false);
  const time = () => video.evaluate((v: HTMLVideoElement) => v.currentTime);
  await expect.poll(time, { timeout: 30_000 }).toBeGreaterThan(0);
  const first = await time();
  // it plays as it is recorded (and says what the player and the capture were doing if not)
  await expect
    .poll(time, { timeout: 10_000 })
    .toBeGreaterThan(first + 1)
    .catch(async (error: Error) => {
      throw new Error(
        `${error.message}\nthe player: ${JSON.stringify(await playerState(video))}; live playlist loads: ${playlists.length}; capture: ${JSON.stringify(await captureState())}`,
      );
    });
  await page.locator('[data-testid=live-badge]').waitFor({ timeout: 10_000 });
  // beside the player, the recording's figures and its recent frame
  await expect.poll(() => textOf(page, '[data-testid=progress-size]')).toMatch(/^[\d.]+ (kB|MB)$/);
  await expect.poll(() => loadedWidth(page, '[data-testid=recording-progress] img[src*="/frame.jpg?at="]'), { timeout: 20_000 }).toBeGreaterThan(0);
  expect(scripts.some((script) => /hls\.light-.*\.js$/.test(script))).toBe(true);
  // after the first load, the player asks only for what changed (a delta update), and plays on
  expect(playlists[0]).toBe('');
  expect(playlists).toContain('?_HLS_skip=YES');

  await video.evaluate((v: HTMLVideoElement) => (v.currentTime = 0)); // rewind to the start, as a late viewer does
  await page.locator('[data-testid=go-live]').waitFor();
  await expect.poll(time, { timeout: 10_000 }).toBeGreaterThan(1);
  expect(await time()).toBeLessThan(first);
  await video.evaluate(
    (v: HTMLVideoElement) =>
      new Promise<void>((resolve) => {
        v.pause();
        v.addEventListener('seeked', () => resolve(), { once: true });
        v.currentTime = 4;
      }),
  );
  await screenshot(page, 'archive-live-desktop');
  expect(await seriousViolations(page)).toEqual([]);
  return {
    async switchedToArchive() {
      const archived = page.locator('[data-testid=player][data-mode=archive]');
      await archived.waitFor({ timeout: 20_000 });
      await expect.poll(() => archived.evaluate((v: HTMLVideoElement) => v.readyState), { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
      const after = await archived.evaluate((v: HTMLVideoElement) => ({ src: v.src, time: v.currentTime, paused: v.paused, marker: v.dataset.marker }));
      expect(after).toMatchObject({ src: `${api}/api/download/${VIDEO_ID}/video`, paused: true, marker: 'the element of the live playback' });
      expect(after.time).toBeCloseTo(4, 0);
      expect(archiveFetches).toEqual([]); // the player never loads the archive as a playlist
      expect(errors).toEqual([]);
      await page.close();
    },
  };
}

describe('the web UI', () => {
  it('logs in, submits a stream, counts it down in the queue, follows it live with a growing encoder log, then plays it from the history', async () => {
    // 45 s away from when this test begins, not from the file's setup, which a loaded machine stretches past that
    await youtubeSaysUpcoming();
    const page = await browser.newPage({ viewport: VIEWPORTS.desktop, baseURL: api });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await logInOnPage(page, '/');
    await page.getByRole('button', { name: /alice/ }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/');

    await page.getByLabel(/Stream URL/).fill(`https://www.youtube.com/watch?v=${VIDEO_ID}`);
    await expect.poll(() => textOf(page, '[data-testid=recognised]'), { timeout: 15_000 }).toContain(TITLE);
    await screenshot(page, 'home-recognised-desktop');
    await page.getByRole('button', { name: 'Archive it' }).click();
    await page.getByText('Queued:').waitFor();
    await page.getByRole('link', { name: 'queue', exact: true }).click();

    const countdown = page.locator('[data-testid=countdown]').first(); // the soonest: ours, before next year's
    await expect.poll(() => countdown.innerText()).toMatch(/^Starts in 00:00:[0-4]\d$/);
    const first = await countdown.innerText();
    await expect.poll(() => countdown.innerText(), { timeout: 5000 }).not.toBe(first);
    await expect.poll(() => textOf(page, '[data-testid=queue-list]')).toContain('alice');

    await youtubeSays({
      liveStatus: 'is_live',
      releaseTimestamp: Math.floor(Date.now() / 1000),
      hlsUrl: fixture.url,
      thumbnailUrl: fixture.url.replace('index.m3u8', 'poster.jpg'),
    });
    const encoded = fixture.start();
    await page.getByText('Recording now', { exact: true }).waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: 'Show encoder log' }).click();
    const log = page.locator('[data-testid=encoder-log]');
    await expect.poll(() => log.innerText(), { timeout: 20_000 }).toContain('[kura] recording');
    const early = (await log.innerText()).length;
    await expect.poll(async () => (await log.innerText()).length, { timeout: 20_000 }).toBeGreaterThan(early);
    // its figures so far, and a recent frame in place of the thumbnail, as the queue refreshes
    await expect.poll(() => textOf(page, '[data-testid=progress-size]'), { timeout: 15_000 }).toMatch(/^[\d.]+ (kB|MB)$/);
    await expect.poll(() => textOf(page, '[data-testid=progress-bitrate]')).toMatch(/^[\d.]+ (kb|Mb)\/s$/);
    expect(await textOf(page, '[data-testid=progress-gaps]')).toBe('none');
    expect(await textOf(page, '[data-testid=progress-elapsed]')).toMatch(/^\d+:\d\d$/);
    await expect.poll(() => loadedWidth(page, '[data-testid=queue-list] img[src*="/frame.jpg?at="]'), { timeout: 20_000 }).toBeGreaterThan(0);
    await screenshot(page, 'queue-live-desktop');
    const watching = await watchWhileRecording();
    await fixture.finish();
    await encoded;
    const done = await waitForRecord(db.url, VIDEO_ID, (r) => r.status === 'finished' || r.status === 'failed');
    expect(done.status, done.failure_reason ?? '').toBe('finished');
    await watching.switchedToArchive();

    await page.getByRole('link', { name: 'History', exact: true }).click();
    await page.getByRole('link', { name: TITLE }).click();
    await page.waitForURL(`**/archive/${VIDEO_ID}`);
    const video = page.locator('[data-testid=player]');
    await video.evaluate((v: HTMLVideoElement) => {
      v.muted = true;
      return v.play();
    });
    await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.currentTime), { timeout: 15_000 }).toBeGreaterThan(1);
    const landed = await video.evaluate(
      (v: HTMLVideoElement) =>
        new Promise<number>((resolve) => {
          v.addEventListener('seeked', () => resolve(v.currentTime), { once: true });
          v.currentTime = 20;
        }),
    );
    expect(landed).toBeGreaterThanOrEqual(19.5);
    await expect.poll(() => textOf(page, 'aside')).toMatch(/Complete\s+Yes, no segment lost/);
    const logFile = await page.request.get((await page.getByRole('link', { name: 'Encoder log' }).getAttribute('href')) as string);
    expect(logFile.status()).toBe(200);
    expect(await logFile.text()).toContain('[kura] recording');
    await screenshot(page, 'archive-playing-desktop');
    expect(errors).toEqual([]);
    await page.close();
  }, 180_000);

  it('pages through the history, changes page size and sort, and the archive page’s downloads answer', async () => {
    const page = await browser.newPage({ viewport: VIEWPORTS.desktop, baseURL: api });
    // the history counts every finished record: the imported ones, the stored one, and whatever another test archived
    const finished = async () => (await db.pool.query(`select count(*)::int as n from livestreams where status = 'finished'`)).rows[0].n as number;
    expect(await finished()).toBeGreaterThanOrEqual(IMPORTED + 1);
    await page.goto('/history');
    const items = page.locator('[data-testid=history-list] > li');
    await expect.poll(() => items.count()).toBe(25);
    await expect.poll(async () => page.getByText(`1–25 of ${await finished()} archived streams`).count()).toBe(1);
    const titleOf = (item: Locator) => item.locator('h3').innerText();
    const newest = await titleOf(items.first());

    await page.getByLabel('Per page').selectOption('50');
    await expect.poll(() => items.count()).toBe(50);
    await page.getByRole('button', { name: 'Next →' }).click();
    const total = await finished();
    await expect.poll(() => items.count()).toBe(total - 50);
    await page.getByText(`51–${total} of ${total}`).waitFor();
    expect(new URL(page.url()).search).toBe('?page=1&limit=50');

    await page.getByLabel('Sort').selectOption('asc');
    await page.getByText(`1–50 of ${total}`).waitFor();
    await expect.poll(() => items.first().innerText()).toContain('Karaoke night 0');
    await page.reload(); // the URL keeps the view
    await expect.poll(() => items.first().innerText()).toContain('Karaoke night 0');
    await page.getByRole('button', { name: 'Next →' }).click();
    await page.getByText(`51–${total} of ${total}`).waitFor();
    // the count may show before the list has the page (a clone run read the first page's last item)
    await expect.poll(() => titleOf(items.last())).toBe(newest); // newest first before, oldest first now

    // playing in the page is not a download; the download link is
    const downloads = () => fetch(`${api}/api/video/${STORED_ID}/downloads`).then((r) => r.json());
    await page.goto(`/archive/${STORED_ID}`);
    const video = page.locator('[data-testid=player]');
    await video.evaluate((v: HTMLVideoElement) => {
      v.muted = true;
      return v.play();
    });
    await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.currentTime), { timeout: 15_000 }).toBeGreaterThan(0.5);
    expect(await downloads()).toEqual({ downloads: 0 });
    for (const name of [/Download video/, 'Thumbnail']) {
      const href = await page.getByRole('link', { name }).getAttribute('href');
      const response = await page.request.get(href as string);
      expect(response.status(), String(name)).toBe(200);
      expect((await response.body()).length).toBeGreaterThan(0);
    }
    expect(await downloads()).toEqual({ downloads: 1 });

    // a shared link previews: the server writes the Open Graph tags into the page itself
    const html = await fetch(`${api}/archive/${STORED_ID}`).then((r) => r.text());
    expect(html).toContain(`<meta property="og:title" content="${STORED_TITLE}">`);
    expect(html).toContain(`<meta property="og:url" content="${api}/archive/${STORED_ID}">`);
    expect(html).toMatch(/<meta property="og:image" content="http[^"]+">/);
    await page.close();
  }, 60_000);

  it('shows the placeholder, never a broken image, where a thumbnail fails to load', async () => {
    const page = await browser.newPage({ viewport: VIEWPORTS.desktop, baseURL: api });
    const views = [
      ['/queue', page.locator('[data-testid=queue-list] > li', { hasText: FAR_TITLE })],
      ['/history', page.locator('[data-testid=history-list] > li', { hasText: `Karaoke night ${IMPORTED - 1}` })],
      [`/archive/${FAR_ID}`, page.locator('.player.placeholder')],
    ] as const;
    for (const [url, view] of views) {
      await page.goto(url);
      await view.waitFor();
      const shown = () =>
        view.evaluate((element) => ({
          placeholders: element.querySelectorAll('[data-testid=thumb-placeholder]').length,
          broken: [...element.querySelectorAll('img')].filter((img) => img.complete && img.naturalWidth === 0).length,
        }));
      await expect.poll(shown, { timeout: 5000 }).toEqual({ placeholders: 1, broken: 0 });
    }
    await page.close();
  }, 30_000);

  it('searches as you type with a typo, and narrows to a channel', async () => {
    const page = await browser.newPage({ viewport: VIEWPORTS.desktop, baseURL: api });
    await page.goto('/history');
    const search = page.getByRole('searchbox', { name: 'Search the archive' });
    await search.pressSequentially('sernade', { delay: 40 }); // "serenade" with a letter missing
    // on a busy machine a pause between keys can outlast the debounce and search "s" first: wait for the whole word
    await expect.poll(() => new URL(page.url()).searchParams.get('q'), { timeout: 10_000 }).toBe('sernade');
    await expect.poll(() => page.getByText(/of \d+ matches/).count(), { timeout: 10_000 }).toBe(1);
    const items = page.locator('[data-testid=history-list] > li');
    await expect.poll(() => items.first().innerText()).toContain(STORED_TITLE);
    await items
      .first()
      .getByRole('button', { name: `only this channel: ${STORED_CHANNEL}` })
      .click();
    await page.getByText('1–1 of 1 matches').waitFor();
    await expect.poll(() => items.count()).toBe(1);
    await page.getByText(`Channel: ${STORED_CHANNEL}`).waitFor();
    await screenshot(page, 'history-search-desktop-light');
    await search.fill('nothing-like-this-anywhere');
    await page.getByText('Nothing in the archive matches').waitFor();
    await page.close();
  }, 60_000);

  it('says why before queueing when an HLS playlist cannot be read (a typo answering 404), and queues nothing', async () => {
    const context = await loggedInContext(VIEWPORTS.desktop, 'light');
    const page = await context.newPage();
    await page.goto('/');
    await page.getByLabel(/Stream URL/).fill(fixture.url.replace('index.m3u8', 'no-such/index.m3u8'));
    await expect
      .poll(
        () =>
          page
            .getByTestId('refused')
            .innerText()
            .catch(() => ''),
        { timeout: 15_000 },
      )
      .toMatch(/cannot archive this: The playlist cannot be read: .*HTTP 404\. To record a stream that is not on air yet, follow/);
    expect(await page.getByRole('button', { name: 'Archive it' }).isDisabled()).toBe(true);
    expect(await page.getByLabel('Title (optional)').count()).toBe(0);
    await context.close();
  });

  it('lets an admin cancel an upcoming stream from the queue and retry it from its archive page', async () => {
    const context = await loggedInContext(VIEWPORTS.desktop, 'light');
    const page = await context.newPage();
    page.on('dialog', (dialog) => void dialog.accept('not happening after all'));
    await page.goto(`/archive/${FAR_ID}`);
    await page.getByText('not recorded yet').waitFor(); // upcoming: not "imported"
    // the watch job's look at YouTube (the stand-in): what it answered, and when it looks again
    const lastCheck = /^Last look at .+: scheduled; next look at .+\.$/;
    await expect
      .poll(
        () =>
          page
            .getByTestId('last-check')
            .innerText()
            .catch(() => ''),
        { timeout: 20_000 },
      )
      .toMatch(lastCheck);
    await page.goto('/queue');
    const row = page.locator('[data-testid=queue-list] > li', { hasText: FAR_TITLE });
    expect(await row.getByTestId('last-check').innerText()).toMatch(lastCheck);
    await row.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => row.count()).toBe(0);
    const status = async () => (await fetch(`${api}/api/video/${FAR_ID}`).then((r) => r.json())) as { status: string; failureReason: string };
    expect(await status()).toMatchObject({ status: 'failed', failureReason: expect.stringContaining('not happening after all') });

    await page.goto(`/archive/${FAR_ID}`);
    await page.getByText('Not archived: ').waitFor();
    expect(await page.getByText('nothing was recorded').count()).toBe(1);
    await page.getByRole('button', { name: 'Retry' }).click();
    // the retried record is watched again at once (and, imported with no live source, fails again):
    // the admin's actions are what is certain, in the audit table
    await expect
      .poll(() => db.pool.query(`select action, admin, reason from admin_actions where livestream_id = $1 order by id`, [FAR_ID]).then((r) => r.rows), {
        timeout: 10_000,
      })
      .toEqual([
        { action: 'cancel', admin: expect.stringContaining('alice'), reason: 'not happening after all' },
        { action: 'retry', admin: expect.stringContaining('alice'), reason: 'retried from the web UI' },
      ]);
    await context.close();
  }, 60_000);

  it('lets an admin rename an archive from its page: title and channel, found by search under the new names', async () => {
    const context = await loggedInContext(VIEWPORTS.desktop, 'light');
    const page = await context.newPage();
    const answers = ['Marathon of songs', 'Marathon Ch.'];
    page.on('dialog', (dialog) => void dialog.accept(answers.shift()));
    await page.goto('/archive/rec00000007');
    await page.getByRole('heading', { name: 'Karaoke night 7' }).waitFor();
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByRole('heading', { name: 'Marathon of songs' }).waitFor();
    expect(await page.getByRole('link', { name: 'Marathon Ch.' }).count()).toBe(1);
    await page.goto('/history?q=marathon');
    await expect
      .poll(() => page.locator('[data-testid=history-list] > li').allInnerTexts(), { timeout: 10_000 })
      .toEqual([expect.stringContaining('Marathon of songs')]);
    await context.close();
  });

  it('lets an admin pin an archive from its page, and preview and save a channel’s retention on the channel’s page', async () => {
    const context = await loggedInContext(VIEWPORTS.desktop, 'light');
    const page = await context.newPage();
    await page.goto('/archive/rec00000009');
    await page.getByRole('button', { name: 'Pin', exact: true }).click();
    await page.getByRole('button', { name: 'Unpin' }).waitFor();
    const { rows } = await db.pool.query('select pinned, channel_id from livestreams where id = $1', ['rec00000009']);
    expect(rows[0]).toMatchObject({ pinned: true });
    const channelId = rows[0].channel_id as string;
    const { rows: counted } = await db.pool.query(`select count(*)::int as n from livestreams where channel_id = $1 and status = 'finished'`, [channelId]);

    await page.goto(`/channel/${encodeURIComponent(channelId)}`);
    await page.getByLabel('Keep the last N archives').fill('0');
    await page.getByRole('button', { name: 'Preview' }).click();
    // every finished archive of the channel but the pinned one
    const others = counted[0].n - 1;
    await expect.poll(() => page.getByTestId('retention-preview').textContent()).toMatch(new RegExp(`^would remove ${others} archives?, `));
    // saved with a limit that removes nothing: the hourly job may run while the suite does
    await page.getByLabel('Keep the last N archives').fill('1000');
    await page.getByRole('button', { name: 'Save retention' }).click();
    await page.getByText('Saved', { exact: true }).waitFor();
    const saved = await db.pool.query('select keep_last, max_age_days, max_gb from channel_retention where channel_id = $1', [channelId]);
    expect(saved.rows).toEqual([{ keep_last: 1000, max_age_days: null, max_gb: null }]);
    await context.close();
  });

  it('creates an API token shown once that works as a bearer, revokes it, and logs out from the avatar menu', async () => {
    const context = await loggedInContext(VIEWPORTS.desktop, 'light');
    const page = await context.newPage();
    page.on('dialog', (dialog) => void dialog.accept());
    await page.goto('/tokens');
    await page.getByLabel('Name').fill('my script');
    await page.getByRole('button', { name: 'Create token' }).click();
    const token = ((await page.getByTestId('new-token').textContent()) ?? '').trim();
    expect(token).toMatch(/^kura_/);
    const asBearer = () => fetch(`${api}/api/user`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status);
    expect(await asBearer()).toBe(200);
    await page.getByRole('button', { name: 'Revoke my script' }).click();
    await page.getByText('You have no tokens.').waitFor();
    expect(await asBearer()).toBe(401);

    await page.getByRole('button', { name: /alice/ }).click();
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('link', { name: 'Log in' }).first().waitFor();
    expect((await context.request.get('/api/user')).status()).toBe(401);
    await context.close();
  }, 60_000);

  it('loads every page as nobody without an error in the console (no failed request asking who is logged in)', async () => {
    const page = await browser.newPage({ viewport: VIEWPORTS.desktop, baseURL: api });
    // the thumbnails whose host is gone fail on purpose (the placeholder test): those images, and only those, may fail
    const brokenImages = new Set<string>();
    const refused: string[] = [];
    const errors: string[] = [];
    page.on('response', (response) => {
      if (response.status() < 400) return;
      if (response.request().resourceType() === 'image') brokenImages.add(response.url());
      else refused.push(`${response.status()} ${response.url()}`);
    });
    // (a request cut short by going to the next page, such as the archive's video, is aborted: not a failure)
    page.on('requestfailed', (request) => {
      if (request.resourceType() === 'image') brokenImages.add(request.url());
      else if (request.failure()?.errorText !== 'net::ERR_ABORTED') refused.push(`${request.failure()?.errorText} ${request.url()}`);
    });
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(`${page.url()}: ${message.text()} (${message.location().url})`);
    });
    page.on('pageerror', (error) => errors.push(error.message));
    // the queue names its submitters, imported ones without an account among them; the record page is an imported upcoming one
    for (const url of ['/', '/history', '/queue', '/stats', `/archive/${FAR_ID}`, '/follows']) {
      await page.goto(url);
      await page.waitForLoadState('networkidle');
    }
    await page.getByRole('link', { name: 'Log in' }).first().waitFor(); // the session was asked, and is nobody
    expect(refused).toEqual([]);
    expect(errors.filter((error) => ![...brokenImages].some((image) => error.endsWith(`(${image})`)))).toEqual([]);
    await page.close();
  }, 60_000);

  it('shows the app’s not-found page for an unknown page, and problem JSON for an unknown API path', async () => {
    const page = await browser.newPage({ viewport: VIEWPORTS.phone, baseURL: api });
    const response = await page.goto('/no-such-page');
    expect(response?.status()).toBe(404);
    expect(response?.headers()['content-type']).toMatch(/^text\/html/);
    await page.getByRole('heading', { level: 1 }).waitFor();
    expect(await page.title()).toBe('Not found · Kura');
    expect(await page.getByRole('navigation', { name: 'Main' }).count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);
    // the API's own paths stay problem JSON, whatever the client accepts; so does a script's request elsewhere
    for (const [url, accept] of [
      ['/api/no-such-thing', 'text/html'],
      ['/no-such-page', 'application/json'],
    ] as const) {
      const answer = await fetch(`${api}${url}`, { headers: { accept } });
      expect(answer.status, url).toBe(404);
      expect(answer.headers.get('content-type'), url).toMatch(/^application\/problem\+json/);
      expect(await answer.json()).toMatchObject({ code: 'route_not_found' });
    }
    await page.close();
  });

  it('fits the nav on a phone in one row that scrolls sideways, every link reachable by keyboard', async () => {
    // one admin's page (every link, Webhooks too), loaded again at each width and theme
    const context = await loggedInContext(VIEWPORTS.phone, 'light');
    const page = await context.newPage();
    for (const [width, viewport] of [
      ['phone', VIEWPORTS.phone],
      ['desktop', { width: 1366, height: 900 }],
    ] as const) {
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.setViewportSize(viewport);
        await page.emulateMedia({ colorScheme });
        await page.goto('/stats');
        const nav = page.getByRole('navigation', { name: 'Main' });
        const links = nav.getByRole('list').getByRole('link');
        await expect.poll(() => links.count()).toBe(7);
        const tops = await links.evaluateAll((all) => all.map((a) => Math.round(a.getBoundingClientRect().top)));
        expect(new Set(tops).size, `${width}: ${tops.join(', ')}`).toBe(1);
        expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
        // the current page's link is in sight; Tab reaches every link, each scrolled into sight when focused
        const list = nav.getByRole('list');
        const inSight = (link: ReturnType<typeof links.nth>) =>
          Promise.all([list.boundingBox(), link.boundingBox()]).then(([row, box]) =>
            box!.x >= row!.x - 1 && box!.x + box!.width <= row!.x + row!.width + 1 ? true : `${JSON.stringify(box)} outside ${JSON.stringify(row)}`,
          );
        expect(await inSight(nav.locator('[aria-current=page]'))).toBe(true);
        await screenshot(page, `nav-${width}-${colorScheme}`);
        await nav.getByRole('link', { name: 'Kura' }).focus();
        for (let i = 0; i < 7; i += 1) {
          await page.keyboard.press('Tab');
          const link = links.nth(i);
          expect(await link.evaluate((a) => a === document.activeElement)).toBe(true);
          await expect.poll(() => inSight(link), { timeout: 2000 }).toBe(true);
        }
        expect(await seriousViolations(page)).toEqual([]);
      }
    }
    await context.close();
  }, 60_000);

  it('warns admins, and only them, of a disk under 10 % free, at phone and desktop widths in both themes', async () => {
    // a worker on another machine reports its spool nearly full (as its spool-report loop writes it)
    await db.pool.query(`insert into worker_disks (worker_id, free_bytes, total_bytes, reported_at) values ('far-host:4242', 500000000, 10000000000, now())`);
    try {
      // the api reads the figures at most every 5 s: once its admins' stats list the spool, every page load shows it
      const admin = await loggedInContext(VIEWPORTS.desktop, 'light');
      const lowPlaces = async () => ((await (await admin.request.get('/api/stats')).json()) as { disk: { low: unknown[] } }).disk.low.length;
      await expect.poll(lowPlaces).toBe(1);
      // one admin page, loaded again at each width and theme
      const page = await admin.newPage();
      for (const [width, viewport] of Object.entries(VIEWPORTS)) {
        for (const colorScheme of ['light', 'dark'] as const) {
          await page.setViewportSize(viewport);
          await page.emulateMedia({ colorScheme });
          await page.goto('/queue');
          const banner = page.getByRole('alert').filter({ hasText: 'Disk nearly full' });
          await banner.waitFor();
          expect(await banner.textContent()).toContain('spool of worker far-host:4242: 500 MB free of 10.0 GB (5 %)');
          expect(await banner.evaluate((node) => node.scrollWidth <= node.clientWidth)).toBe(true);
          await screenshot(page, `disk-banner-${width}-${colorScheme}`);
          expect(await seriousViolations(page)).toEqual([]);
        }
      }
      await admin.close();
      const anonymous = await browser.newPage({ viewport: VIEWPORTS.desktop, baseURL: api });
      await anonymous.goto('/queue');
      await anonymous.waitForLoadState('networkidle');
      expect(await anonymous.getByText('Disk nearly full').count()).toBe(0);
      await anonymous.close();
    } finally {
      await db.pool.query(`delete from worker_disks where worker_id = 'far-host:4242'`);
    }
  }, 60_000);

  // desktop in the light theme, phone in the dark one: both themes are checked (contrast included);
  // a test each, as each width's fourteen screenshots and axe passes take a loaded machine a minute
  for (const [width, viewport] of Object.entries(VIEWPORTS)) {
    const colorScheme = width === 'phone' ? 'dark' : 'light';
    it(`shows every page at ${width} width in the ${colorScheme} theme without serious accessibility violations`, async () => {
      const pages = ['/', '/queue', '/history', `/archive/${STORED_ID}`, '/stats', '/tokens', '/login'];
      const found: string[] = [];
      // a page each for an admin and for nobody (the login page), navigated from page to page:
      // Chromium's new page costs a loaded machine twice what a navigation does
      const context = await loggedInContext(viewport, colorScheme);
      const anonymous = await browser.newContext({ viewport, baseURL: api, colorScheme });
      const [adminPage, anonymousPage] = await Promise.all([context.newPage(), anonymous.newPage()]);
      for (const url of pages) {
        const page = url === '/login' ? anonymousPage : adminPage;
        await page.goto(url);
        await page.waitForLoadState('networkidle');
        await expect.poll(() => page.locator('.skeleton').count(), { timeout: 10_000 }).toBe(0);
        const name = url === '/' ? 'home' : url.slice(1).replace(/\//g, '-');
        await screenshot(page, `${name}-${width}-${colorScheme}`);
        found.push(...(await seriousViolations(page)).map((v) => `${url} (${width}): ${v}`));
      }
      await context.close();
      await anonymous.close();
      expect(found).toEqual([]);
    });
  }

  it('warns on the archive page when `kura verify` finds its video corrupt, and shows no player once it is missing', async () => {
    // an archive of its own (written here, not by another test), damaged under the running server
    const id = 'uiDamaged01';
    const store = createFsStore(path.join(cwd, 'data', 'archive'));
    const bytes = await storeArchive(store, db.livestreams, id);
    await putObject(store, objectKeys.video(id), bytes.subarray(0, 100));
    expect((await runKura(['verify', id], env(), cwd)).code).toBe(1);
    const page = await browser.newPage({ viewport: VIEWPORTS.desktop, baseURL: api });
    await page.goto(`/archive/${id}`);
    const warning = page.getByTestId('integrity-warning');
    await expect.poll(() => warning.count()).toBe(1);
    expect(await warning.innerText()).toMatch(/video is damaged/);
    expect(await page.getByTestId('player').count()).toBe(1); // a damaged file may still mostly play
    await expect.poll(() => textOf(page, 'aside')).toMatch(/Verified\s+corrupt/);

    await store.delete(objectKeys.video(id));
    expect((await runKura(['verify', id], env(), cwd)).code).toBe(1);
    await page.reload();
    await expect.poll(() => warning.count()).toBe(1);
    expect(await warning.innerText()).toMatch(/video is missing from storage/);
    expect(await page.getByTestId('player').count()).toBe(0);
    expect(await page.getByRole('link', { name: /Download video/ }).count()).toBe(0);
    await screenshot(page, 'archive-missing-desktop-light');
    expect(await seriousViolations(page)).toEqual([]);
    await page.close();
  }, 60_000);

  // last: it removes an archive the other tests list
  it('takes an archive down from its page and lands on the history without asking for `undefined`', async () => {
    const id = 'rec00000020';
    const context = await loggedInContext(VIEWPORTS.desktop, 'light');
    const page = await context.newPage();
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    page.on('dialog', (dialog) => void dialog.accept('a test takedown'));
    await page.goto(`/archive/${id}`);
    await page.getByRole('heading', { name: 'Karaoke night 20' }).waitFor();
    await page.getByRole('button', { name: 'Take down' }).click();
    await page.waitForURL('**/history');
    await expect.poll(() => page.locator('[data-testid=history-list] > li').count()).toBe(25);
    await page.waitForLoadState('networkidle');
    expect((await fetch(`${api}/api/video/${id}`)).status).toBe(404);
    expect(requests.filter((url) => url.includes('undefined'))).toEqual([]);
    expect(requests).toContainEqual(expect.stringContaining(`/api/video/${id}`));
    await context.close();
  }, 30_000);
});
