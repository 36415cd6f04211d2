import { readFile } from 'node:fs/promises';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFsStore } from '../../src/adapters/storage/fs-store.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { finishedRecord } from '../support/archives.js';
import { freePort, launchBrowser, screenshot, seriousViolations, VIEWPORTS } from '../support/browser.js';
import { keyframeAtOrBefore, type LongArchive, makeLongArchive, probe, storeAsVideo } from '../support/long-archive.js';

// Clips and links to a moment on the archive page, in Debian's Chromium against the app in this
// process, on a real three-minute archive (keyframes every 2 s) in its fs store. One page browses
// it all: a new Chromium page costs a loaded machine more than a navigation.
const ID = 'clipPage001';
const LIVE_ID = 'clipLive001';
let kura: TestApp;
let archive: LongArchive;
let origin: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  [kura, archive, browser] = await Promise.all([startTestApp({ publicUrl: origin }), makeLongArchive(3), launchBrowser()]);
  await kura.db.livestreams.upsertMany([
    finishedRecord(ID, await storeAsVideo(createFsStore(kura.archiveDir), ID, archive)),
    { ...finishedRecord(LIVE_ID), status: 'live', startedAt: new Date() },
  ]);
  await kura.app.listen({ port, host: '127.0.0.1' });
  context = await browser.newContext({
    viewport: VIEWPORTS.desktop,
    baseURL: origin,
    acceptDownloads: true,
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  page = await context.newPage();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await kura?.close();
});

const currentTime = (player: Locator) => player.evaluate((v: HTMLVideoElement) => v.currentTime);
const seek = (player: Locator, seconds: number) =>
  player.evaluate(
    (v: HTMLVideoElement, to) =>
      new Promise<void>((resolve) => {
        v.addEventListener('seeked', () => resolve(), { once: true });
        v.currentTime = to;
      }),
    seconds,
  );

/** The length Chromium gives `bytes` played as a video of the page (from a blob: what a viewer's player reads of the file). */
const playedLength = (bytes: Buffer) =>
  page.evaluate(async (base64) => {
    const data = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const video = document.createElement('video');
    video.muted = true;
    video.src = URL.createObjectURL(new Blob([data], { type: 'video/mp4' }));
    await new Promise((resolve, reject) => {
      video.addEventListener('loadedmetadata', resolve, { once: true });
      video.addEventListener('error', () => reject(new Error(video.error?.message ?? 'the clip does not play')), { once: true });
    });
    return video.duration;
  }, bytes.toString('base64'));

describe('the archive page’s clips and links to a moment', () => {
  it('opens at ?t=, clips from an in to an out point, and the clip it downloads plays in Chromium with the length asked', async () => {
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`/archive/${ID}?t=75`);
    const player = page.locator('[data-testid=player][data-mode=archive]');
    await expect.poll(() => currentTime(player)).toBeCloseTo(75, 1);

    const toHere = page.getByRole('button', { name: 'To here' });
    expect(await toHere.isDisabled()).toBe(true); // no in point yet
    await page.getByRole('button', { name: 'Clip from here' }).press('Enter'); // a real button: the keyboard works it
    const range = page.getByTestId('clip-range');
    await expect.poll(() => range.innerText()).toMatch(/^1:15 –/);
    expect(await toHere.isDisabled()).toBe(true); // out is never before in
    await seek(player, 135);
    await toHere.click();
    await expect.poll(() => range.innerText()).toBe('1:15 – 2:15 · 1:00');
    await screenshot(page, 'archive-clip-desktop');
    expect(await seriousViolations(page)).toEqual([]);

    const link = page.getByRole('link', { name: 'Download clip' });
    expect(await link.getAttribute('href')).toBe(`/api/download/${ID}/clip?start=75&end=135`);
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    // the clip begins at the keyframe at or before the in point (keyframes about every 2 s), and its name says so
    const keyframe = await keyframeAtOrBefore(archive.file, 75);
    expect(keyframe).toBeGreaterThan(72);
    expect(download.suggestedFilename()).toBe(`Stream ${ID} (1m${Math.floor(keyframe) - 60}s-2m15s) [${ID}].mp4`);
    const file = await download.path();
    const played = await playedLength(await readFile(file));
    // Chromium plays the whole file, and it holds all that was asked from that keyframe: stream copy
    // ends on whole frames, so the frames B-frames hold back past the out point play too (at this
    // archive's 10 frames a second, about half a second more)
    expect(Math.abs(played - (await probe(file)).seconds)).toBeLessThan(0.05);
    expect(played).toBeGreaterThanOrEqual(135 - keyframe);
    expect(played - (135 - keyframe)).toBeLessThan(0.6);

    await page.getByRole('button', { name: 'Clear clip' }).click();
    expect(await range.count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it('copies a link at the player’s position, which opens the player there; an invalid ?t= is ignored', async () => {
    await page.goto(`/archive/${ID}?t=soon`);
    const player = page.locator('[data-testid=player][data-mode=archive]');
    await expect.poll(() => player.evaluate((v: HTMLVideoElement) => v.readyState)).toBeGreaterThanOrEqual(1);
    expect(await currentTime(player)).toBe(0);
    await seek(player, 135.6);
    await page.getByRole('button', { name: 'Copy link at this time' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Copied' }).count()).toBe(1);
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toBe(`${origin}/archive/${ID}?t=2m15s`);
    await page.goto(copied);
    await expect.poll(() => currentTime(player)).toBeCloseTo(135, 1);
  });

  it('offers the last 1, 5 and 10 minutes of a stream while it is recorded', async () => {
    await page.goto(`/archive/${LIVE_ID}`);
    const lastMinutes = page.getByTestId('clip-controls').getByRole('link', { name: /^Last \d+ min$/ });
    await expect.poll(() => lastMinutes.count()).toBe(3);
    const hrefs = await lastMinutes.evaluateAll((links: HTMLAnchorElement[]) => links.map((a) => a.getAttribute('href')));
    expect(hrefs).toEqual([60, 300, 600].map((seconds) => `/api/download/${LIVE_ID}/clip?last=${seconds}`));
    expect(await page.getByRole('button', { name: 'Clip from here' }).count()).toBe(1);
  });
});
