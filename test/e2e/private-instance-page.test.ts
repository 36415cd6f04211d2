import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VIEWPORTS } from '../support/browser.js';
import { prepareBrowserKura, type BrowserKura } from '../support/browser-kura.js';
import { runKura } from '../support/cli.js';

// A private instance (KURA_PUBLIC_READ=false) in Chromium against a real `kura serve`: a stranger
// sees the login page wherever they go; the account page gives a feed token a feed reader uses.
let served: BrowserKura;
let browser: Browser;

beforeAll(async () => {
  served = await prepareBrowserKura('kura-private-page-', () => ({ KURA_PUBLIC_READ: 'false' }));
  expect((await runKura(['user', 'add', 'alice', '--admin'], served.env(), served.cwd, 'alice-password-1\n')).code).toBe(0);
  ({ browser } = await served.start());
}, 120_000);
afterAll(() => served?.stop());

describe('a private instance in the browser', () => {
  it('shows a stranger only the login page, then the page asked for; a feed link from the account page works in a feed reader', async () => {
    const page = await browser.newPage({ viewport: VIEWPORTS.desktop, baseURL: served.api });
    await page.goto('/history');
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Main' }).count()).toBe(0);

    await page.getByLabel('User name').fill('alice');
    await page.getByLabel('Password').fill('alice-password-1');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'History' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/history');

    await page.goto('/tokens');
    await page.getByRole('button', { name: 'Make one' }).click();
    const token = await page.getByTestId('new-feed-token').innerText();
    expect(token).toMatch(/^kura_feed_[A-Za-z0-9_-]{43}$/);
    const link = await page.getByTestId('feed-token-link').getAttribute('href');
    expect(link).toBe(`/feeds/archives.atom?feed_token=${token}`);
    // a feed reader: no cookie, only the URL
    const asReader = await fetch(`${served.api}${link}`);
    expect([asReader.status, asReader.headers.get('content-type')]).toEqual([200, 'application/atom+xml; charset=utf-8']);
    expect((await fetch(`${served.api}/feeds/archives.atom`)).status).toBe(401);
  });
});
