import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot, seriousViolations, VIEWPORTS } from '../support/browser.js';
import { prepareBrowserKura, type BrowserKura } from '../support/browser-kura.js';
import type { TestDatabase } from '../support/database.js';
import { buildRecord } from '../support/factories.js';
import { importLivestreams } from '../../src/core/records/import-livestreams.js';

// The channel pages in Debian's Chromium against a real `kura serve` (its own process and database),
// on records loaded before it starts; no test writes: each reads what beforeAll loaded.
const ALPHA = { channelId: 'UCalphaChannel000000001', channelName: 'Alpha Sings 歌' };
const BETA = { channelId: 'UCbetaChannel0000000002', channelName: 'Beta Plays' };
const ALPHA_ARCHIVES = 30;
const NEXT_YEAR = new Date(Date.now() + 365 * 86_400_000).toISOString();
let served: BrowserKura;
let db: TestDatabase;
let api: string;
let browser: Browser;

beforeAll(async () => {
  served = await prepareBrowserKura('kura-channel-page-');
  ({ db, api } = served);
  const archive = (n: number, channel: typeof ALPHA) =>
    buildRecord(
      { id: `${channel === ALPHA ? 'alpha' : 'beta'}-${String(n).padStart(2, '0')}`, ...channel, title: `${channel.channelName} stream ${n}`, thumbnail: '' },
      n,
    );
  await importLivestreams(db, [
    ...Array.from({ length: ALPHA_ARCHIVES }, (_, i) => archive(i, ALPHA)),
    buildRecord({ id: 'alpha-next', ...ALPHA, title: 'Alpha next year', thumbnail: '', finished: false, scheduledStart: NEXT_YEAR }),
    ...Array.from({ length: 2 }, (_, i) => archive(100 + i, BETA)),
  ]);
  ({ browser } = await served.start());
}, 120_000);

afterAll(() => served?.stop());

const newPage = async (): Promise<Page> => {
  const page = await browser.newPage({ viewport: VIEWPORTS.desktop, baseURL: api });
  return page;
};

describe('the channel pages', () => {
  it('lists the channels from the nav bar, opens one with its upcoming stream and pages through its archives', async () => {
    const page = await newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto('/history');
    await page.getByRole('link', { name: 'Channels', exact: true }).click();
    const channels = page.locator('[data-testid=channel-list] > li');
    await expect.poll(() => channels.count()).toBe(2);
    // latest archive first: beta's archives are scheduled after alpha's
    expect(await channels.first().innerText()).toContain(BETA.channelName);
    expect(await channels.nth(1).innerText()).toMatch(/30 archives\s+1 upcoming or live/);
    await page.getByText('1–2 of 2 channels').waitFor();
    expect(await page.getByTestId('channel-followed').count()).toBe(0); // neither is followed

    await channels.nth(1).getByRole('link', { name: ALPHA.channelName, exact: true }).click();
    await page.waitForURL(`**/channel/${ALPHA.channelId}`);
    await page.getByRole('heading', { level: 1, name: ALPHA.channelName }).waitFor();
    await expect.poll(() => page.title()).toBe(`${ALPHA.channelName} · Kura`);
    expect(await page.getByRole('navigation', { name: 'Main' }).locator('[aria-current=page]').innerText()).toBe('Channels');
    expect(await page.getByTestId('totals').innerText()).toMatch(/30\s+archives[\s\S]*1\s+upcoming or live/);
    await expect.poll(() => page.getByTestId('channel-upcoming').innerText()).toContain('Alpha next year');
    const archives = page.locator('[data-testid=channel-archives] > li');
    await expect.poll(() => archives.count()).toBe(25);
    await page.getByText(`1–25 of ${ALPHA_ARCHIVES} archived streams`).waitFor();
    expect(await archives.first().innerText()).toContain(`${ALPHA.channelName} stream 29`); // newest first
    expect(await page.getByTestId('channel-archives').innerText()).not.toContain(BETA.channelName);
    await screenshot(page, 'channel-desktop-light');

    await page.getByRole('button', { name: 'Next →' }).click();
    await expect.poll(() => archives.count()).toBe(ALPHA_ARCHIVES - 25);
    await page.getByText(`26–${ALPHA_ARCHIVES} of ${ALPHA_ARCHIVES}`).waitFor();
    expect(new URL(page.url()).search).toBe('?page=1');
    await page.reload(); // the URL keeps the page
    await expect.poll(() => archives.first().innerText()).toContain(`${ALPHA.channelName} stream 4`);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it("leads from a record row's and an archive page's channel name to that channel's page", async () => {
    const page = await newPage();
    await page.goto('/history');
    const row = page.locator('[data-testid=history-list] > li', { hasText: `${BETA.channelName} stream 101` });
    await row.getByRole('link', { name: BETA.channelName, exact: true }).click();
    await page.waitForURL(`**/channel/${BETA.channelId}`);
    await expect.poll(() => page.locator('[data-testid=channel-archives] > li').count()).toBe(2);
    await page.getByText('Nothing of this channel is queued now.').waitFor();

    await page.goto('/archive/alpha-03');
    await page.getByRole('link', { name: ALPHA.channelName, exact: true }).click();
    await page.waitForURL(`**/channel/${ALPHA.channelId}`);
    await page.getByRole('heading', { level: 1, name: ALPHA.channelName }).waitFor();
    await page.close();
  }, 30_000);

  it('says so on the not-found page for an unknown channel, which the server answers 404', async () => {
    const page = await newPage();
    const response = await page.goto('/channel/UCnobodyHere');
    expect(response?.status()).toBe(404);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    expect(await page.getByTestId('not-found-detail').innerText()).toBe(
      'Kura has no channel with the id “UCnobodyHere”: nothing of it is archived or queued here.',
    );
    await page.close();
  }, 30_000);

  it("links the channel's Atom feed, which the browser opens as a document, not as an app page", async () => {
    const page = await newPage();
    await page.goto(`/channel/${ALPHA.channelId}`);
    const feedLink = page.getByTestId('channel-feed');
    expect(await feedLink.innerText()).toBe('Atom feed');
    const [response] = await Promise.all([page.waitForResponse((r) => r.url().includes('/feeds/archives.atom')), feedLink.click()]);
    expect(response.url()).toBe(`${api}/feeds/archives.atom?channelId=${ALPHA.channelId}`);
    expect(response.headers()['content-type']).toBe('application/atom+xml; charset=utf-8');
    expect(await response.text()).toContain(`<title>${ALPHA.channelName} on Kura: archives</title>`);
    await page.close();
  }, 30_000);

  it("serves a channel page with the channel's name in its Open Graph tags", async () => {
    const response = await fetch(`${api}/channel/${ALPHA.channelId}`);
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain(`<title>${ALPHA.channelName} · Kura</title>`);
    expect(html).toContain(`<meta property="og:title" content="${ALPHA.channelName}">`);
    expect(html).toContain(`<meta property="og:url" content="${api}/channel/${ALPHA.channelId}">`);
    expect(html).toMatch(/<meta property="og:description" content="30 archives · \d+ h \d+ min of video · 1 upcoming · on Kura">/);
    expect((await fetch(`${api}/channels`)).status).toBe(200);
  });

  it('shows both pages at desktop and phone widths without serious accessibility violations', async () => {
    const found: string[] = [];
    // one page, loaded again at each width and theme
    const page = await browser.newPage({ viewport: VIEWPORTS.desktop, baseURL: api });
    for (const [width, viewport] of Object.entries(VIEWPORTS)) {
      const colorScheme = width === 'phone' ? 'dark' : 'light';
      await page.setViewportSize(viewport);
      await page.emulateMedia({ colorScheme });
      for (const url of ['/channels', `/channel/${ALPHA.channelId}`]) {
        await page.goto(url);
        await page.waitForLoadState('networkidle');
        await expect.poll(() => page.locator('.skeleton').count(), { timeout: 10_000 }).toBe(0);
        await screenshot(page, `${url === '/channels' ? 'channels' : 'channel'}-${width}-${colorScheme}`);
        found.push(...(await seriousViolations(page)).map((v) => `${url} (${width}): ${v}`));
      }
    }
    await page.close();
    expect(found).toEqual([]);
  }, 60_000);
});
