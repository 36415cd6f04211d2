import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logInOnPage, screenshot, seriousViolations, VIEWPORTS } from '../support/browser.js';
import { prepareBrowserKura, type BrowserKura } from '../support/browser-kura.js';
import { runKura } from '../support/cli.js';
import { startReceiver } from '../support/webhooks.js';

// "Notify me about my submissions" on the tokens page, in Debian's Chromium against a real
// `kura serve` (whose worker delivers to a local receiver verifying with standardwebhooks).
let served: BrowserKura;
let browser: Browser;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  served = await prepareBrowserKura('kura-notifications-page-');
  receiver = await startReceiver();
  // an admin exists, so the login page offers no first-run setup; alice is an ordinary user
  expect((await runKura(['user', 'add', 'root', '--admin'], served.env(), served.cwd, 'root-password-1\n')).code).toBe(0);
  expect((await runKura(['user', 'add', 'alice'], served.env(), served.cwd, 'alice-password-1\n')).code).toBe(0);
  ({ browser } = await served.start());
}, 120_000);

afterAll(async () => {
  await served?.stop();
  await receiver?.close();
});

describe('the notifications section', () => {
  it('adds a personal webhook showing its secret once, sends it a signed test event, and removes it', async () => {
    const page = await browser.newPage({ viewport: VIEWPORTS.desktop, baseURL: served.api });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await logInOnPage(page, '/history');
    await page.getByRole('button', { name: /alice/ }).click();
    await page.getByRole('link', { name: 'API tokens & notifications' }).click();
    await page.getByRole('heading', { name: 'Notify me about my submissions' }).waitFor();
    await page.getByText('You are not notified anywhere.').waitFor();

    await page.getByLabel('URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    const secret = await page.getByTestId('new-webhook-secret').innerText();
    expect(secret).toMatch(/^whsec_/);
    receiver.useSecret(secret);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'notifications-desktop');

    await page.getByRole('button', { name: `Send test to ${receiver.url}` }).click();
    await page.getByText(`A test event is on its way to ${receiver.url}.`).waitFor();
    await receiver.waitFor(1);
    expect(receiver.refusedSignatures).toEqual([]);
    expect(receiver.received.map((r) => r.type)).toEqual(['webhook.test']);

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: `Remove ${receiver.url}` }).click();
    await page.getByText('You are not notified anywhere.').waitFor();
    await page.reload();
    await page.getByText('You are not notified anywhere.').waitFor();
    expect(await page.getByTestId('new-webhook-secret').count()).toBe(0);
    expect(errors).toEqual([]);
  });
});
