import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFsStore } from '../../src/adapters/storage/fs-store.js';
import { addUser, sessionCookieOf } from '../support/accounts.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { finishedRecord } from '../support/archives.js';
import { freePort, launchBrowser, logInOnPage, screenshot, seriousViolations, VIEWPORTS } from '../support/browser.js';
import { chaptersOfFile, type LongArchive, makeLongArchive, storeAsVideo } from '../support/long-archive.js';

// Moments on the archive page (issue 54), in Debian's Chromium against the app in this process:
// marked while the stream is recorded, then chapters of its archive (a real three-minute MP4 in the
// fs store). One page goes through it all, logging in as each user in turn: a new Chromium page
// costs a loaded machine more than a navigation.
const ID = 'momentPage01';
const SONG = 'Song: 残響散歌';
const MARKUP = '<b>not bold</b>';
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
  await Promise.all([addUser(kura, 'alice'), addUser(kura, 'bob'), addUser(kura, 'carol', { admin: true })]);
  // recorded for ten minutes, with nothing captured here: the page marks it all the same
  await kura.db.livestreams.upsertMany([{ ...finishedRecord(ID), status: 'live', startedAt: new Date(Date.now() - 600_000) }]);
  await kura.app.listen({ port, host: '127.0.0.1' });
  context = await browser.newContext({ viewport: VIEWPORTS.desktop, baseURL: origin, permissions: ['clipboard-read', 'clipboard-write'] });
  page = await context.newPage();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await kura?.close();
});

/** Adds a moment as `name` through the API, as another viewer's page would. */
async function addMomentAs(name: string, at: number, text: string): Promise<void> {
  const login = await kura.app.inject({ method: 'POST', url: '/auth/local', headers: { origin }, payload: { username: name, password: `${name}-password` } });
  const cookie = sessionCookieOf(login);
  const added = await kura.app.inject({ method: 'POST', url: `/api/video/${ID}/moments`, headers: { origin, cookie }, payload: { at, text } });
  expect(added.statusCode, added.body).toBe(201);
}

/** Logs `name` in through the login page, which leads back to the archive page, and waits for its moments. */
async function showAs(name: string): Promise<void> {
  await context.clearCookies();
  await logInOnPage(page, `/archive/${ID}`, name, `${name}-password`);
  await page.getByRole('form', { name: 'Add a moment here' }).waitFor();
}

const moments = () => page.getByTestId('moments');
const listed = () =>
  moments()
    .getByRole('listitem')
    .evaluateAll((items) => items.map((item) => item.querySelector('button')?.textContent?.trim()));
const currentTime = (player: Locator) => player.evaluate((v: HTMLVideoElement) => v.currentTime);

describe('moments on the archive page', () => {
  it('marks a moment while the stream is recorded, shows the API’s refusal, and shows another viewer’s without a reload', async () => {
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await showAs('alice');
    const form = page.getByRole('form', { name: 'Add a moment here' });
    await form.getByLabel('Time').fill('1:15');
    await form.getByLabel('Text').fill(SONG);
    await form.getByRole('button', { name: 'Add a moment here' }).click();
    await expect.poll(listed).toEqual([`1:15 ${SONG}`]);

    // past the ten minutes recorded: the server says so, and the form keeps what was typed
    await form.getByLabel('Time').fill('9:00:00');
    await form.getByLabel('Text').fill(MARKUP);
    await form.getByRole('button', { name: 'Add a moment here' }).click();
    expect(await form.getByRole('alert').innerText()).toMatch(/^at: 32400 s is past what is recorded \(\d+ s\)\.$/);
    await form.getByLabel('Time').fill('2:30');
    await form.getByLabel('Text').press('Enter');
    await expect.poll(listed).toEqual([`1:15 ${SONG}`, `2:30 ${MARKUP}`]);
    expect(await form.getByRole('alert').count()).toBe(0);

    await addMomentAs('bob', 30, 'Opening');
    // the page reads a recorded stream again every few seconds
    await expect.poll(listed).toEqual(['0:30 Opening', `1:15 ${SONG}`, `2:30 ${MARKUP}`]);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'moments-live-desktop');
    expect(errors).toEqual([]);
  });

  it('shows them as chapters of the archive: marks on the bar that seek, the list, the chapter lines to copy; text stays text', async () => {
    const archived = finishedRecord(ID, await storeAsVideo(createFsStore(kura.archiveDir), ID, archive));
    // the record as finalize leaves it: the moments marked while it was recorded stay with it
    await kura.db.livestreams.upsertMany([{ ...archived, startedAt: new Date(Date.now() - 600_000) }]);
    await page.reload();
    const player = page.locator('[data-testid=player][data-mode=archive]');
    await expect.poll(() => player.evaluate((v: HTMLVideoElement) => v.duration)).toBeCloseTo(archive.seconds, 0);

    const bar = page.getByTestId('chapter-bar');
    const marks = bar.getByRole('button');
    expect(await marks.evaluateAll((buttons) => buttons.map((b) => b.getAttribute('aria-label')))).toEqual(['0:30 Opening', `1:15 ${SONG}`, `2:30 ${MARKUP}`]);
    // each mark stands at its share of the timeline
    const box = (await bar.boundingBox()) as { x: number; width: number };
    const song = bar.getByRole('button', { name: `1:15 ${SONG}`, exact: true });
    const mark = (await song.boundingBox()) as { x: number; width: number };
    expect((mark.x + mark.width / 2 - box.x) / box.width).toBeCloseTo(75 / archive.seconds, 2);

    await song.click();
    await expect.poll(() => currentTime(player)).toBeCloseTo(75, 1);
    await expect.poll(() => page.getByTestId('current-moment').innerText()).toBe(`Now: ${SONG}`);
    expect(
      await moments()
        .getByRole('button', { name: `1:15 ${SONG}`, exact: true })
        .getAttribute('aria-current'),
    ).toBe('true');
    await moments().getByRole('button', { name: '0:30 Opening', exact: true }).press('Enter');
    await expect.poll(() => currentTime(player)).toBeCloseTo(30, 1);
    await expect.poll(() => page.getByTestId('current-moment').innerText()).toBe('Now: Opening');

    // a moment's text is shown as typed, never as markup
    expect(await moments().getByText(MARKUP, { exact: true }).count()).toBe(1);
    expect(await page.locator('main b').count()).toBe(0);

    await moments().getByRole('button', { name: 'Copy as chapters' }).click();
    await expect.poll(() => moments().getByRole('status').innerText()).toBe('Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`0:30 Opening\n1:15 ${SONG}\n2:30 ${MARKUP}\n`);
    // the archive with them as its chapters, from the same panel
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-chapters').click()]);
    const chaptered = path.join(await mkdtemp(path.join(os.tmpdir(), 'kura-chapters-')), 'chaptered.mp4');
    await download.saveAs(chaptered);
    expect((await chaptersOfFile(chaptered)).map((c) => [c.start, c.title])).toEqual([
      [0, 'Start'],
      [30, 'Opening'],
      [75, SONG],
      [150, MARKUP],
    ]);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'moments-archive-desktop');
  });

  it('lets the author edit and remove their own moments, an admin any, and another viewer none', async () => {
    // alice's page: hers, not bob's
    expect(
      await moments()
        .getByRole('button', { name: /^Edit / })
        .evaluateAll((b) => b.map((button) => button.getAttribute('aria-label'))),
    ).toEqual([`Edit 1:15 ${SONG}`, `Edit 2:30 ${MARKUP}`]);
    await moments()
      .getByRole('button', { name: `Edit 2:30 ${MARKUP}` })
      .click();
    const edit = page.getByRole('form', { name: `Change the moment 2:30 ${MARKUP}` });
    expect(await edit.getByLabel('Time').inputValue()).toBe('2:30');
    await edit.getByLabel('Time').fill('2:45');
    await edit.getByLabel('Text').fill('Encore');
    await edit.getByRole('button', { name: 'Save' }).click();
    await expect.poll(listed).toEqual(['0:30 Opening', `1:15 ${SONG}`, '2:45 Encore']);
    page.once('dialog', (dialog) => void dialog.accept());
    await moments().getByRole('button', { name: 'Remove 2:45 Encore' }).click();
    await expect.poll(listed).toEqual(['0:30 Opening', `1:15 ${SONG}`]);

    await showAs('bob');
    await expect.poll(listed).toEqual(['0:30 Opening', `1:15 ${SONG}`]);
    expect(
      await moments()
        .getByRole('button', { name: /^(Edit|Remove) / })
        .evaluateAll((b) => b.map((button) => button.getAttribute('aria-label'))),
    ).toEqual(['Edit 0:30 Opening', 'Remove 0:30 Opening']);

    await showAs('carol');
    await expect
      .poll(() =>
        moments()
          .getByRole('button', { name: /^Remove / })
          .count(),
      )
      .toBe(2);
    await page.setViewportSize(VIEWPORTS.phone);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'moments-admin-phone');
  });
});
