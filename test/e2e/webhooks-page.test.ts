import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logInOnPage, screenshot, seriousViolations, VIEWPORTS } from '../support/browser.js';
import { prepareBrowserKura, type BrowserKura } from '../support/browser-kura.js';
import { runKura } from '../support/cli.js';
import type { TestDatabase } from '../support/database.js';

// The webhooks page in Debian's Chromium against a real `kura serve` (api and worker), sending to
// a local HTTP receiver (127.0.0.1 is allowed: the e2e environment sets KURA_ALLOW_PRIVATE_SOURCES).
let served: BrowserKura;
let db: TestDatabase;
let api: string;
let browser: Browser;
let receiver: http.Server;
let receiverUrl: string;
const received: Array<{ body: string; headers: Record<string, string> }> = [];
const arrivals: Array<() => void> = [];

beforeAll(async () => {
  receiver = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ body: Buffer.concat(chunks).toString('utf8'), headers: request.headers as Record<string, string> });
      response.writeHead(204).end();
      arrivals.splice(0).forEach((arrived) => arrived());
    });
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/kura`;

  served = await prepareBrowserKura('kura-webhooks-page-');
  ({ db, api } = served);
  const { env, cwd } = served;
  expect((await runKura(['user', 'add', 'alice', '--admin'], env(), cwd, 'alice-password-1\n')).code).toBe(0);
  expect((await runKura(['user', 'add', 'bob'], env(), cwd, 'bob-password-12\n')).code).toBe(0);
  ({ browser } = await served.start());
}, 120_000);

afterAll(async () => {
  await served?.stop();
  receiver?.close();
});

/** Resolves at the receiver's next request (call it before what causes the request). */
const nextRequest = () => new Promise<void>((resolve) => arrivals.push(resolve));

const card = (page: Page, url: string) => page.locator('[data-testid=webhook]', { has: page.getByRole('heading', { name: url, exact: true }) });

describe('the webhooks page', () => {
  it('lets an admin add a webhook (secret shown once), send a test event the receiver verifies, enable it after it was disabled and remove it', async () => {
    const page = await browser.newPage({ viewport: VIEWPORTS.desktop, baseURL: api });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await logInOnPage(page, '/history');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
    await page.waitForURL('**/webhooks');
    await page.getByText('No webhooks yet').waitFor();

    await page.getByLabel('URL', { exact: true }).fill(receiverUrl);
    await page.getByLabel('livestream.finished').check();
    await page.getByLabel('livestream.failed').check();
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const secret = await page.getByTestId('webhook-secret').innerText();
    expect(secret).toMatch(/^whsec_/);
    expect(await page.getByRole('status').filter({ hasText: 'Webhook added' }).innerText()).toContain('it will not be shown again');
    const added = card(page, receiverUrl);
    await added.waitFor();
    expect(await added.innerText()).toMatch(/Events: livestream\.finished, livestream\.failed[\s\S]*Channel: all[\s\S]*Added by local\/alice/);
    expect(await added.getByTestId('webhook-state').innerText()).toBe('OK');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'webhooks-added-desktop');

    const arrived = nextRequest();
    await added.getByRole('button', { name: `Send test event to ${receiverUrl}` }).click();
    await arrived;
    const payload = new Webhook(secret).verify(received[0]!.body, received[0]!.headers) as { type: string; data: { webhookId: string } };
    expect(payload.type).toBe('webhook.test');
    const id = await added.getAttribute('data-webhook-id');
    expect(payload.data.webhookId).toBe(id);
    const row = added.getByTestId('webhook-deliveries').locator('tbody tr').first();
    await expect.poll(() => row.innerText(), { timeout: 20_000 }).toMatch(/^webhook\.test\s+Delivered .+\s+1\s+HTTP 204\s+\d+ ms\s+—$/);
    expect(await row.getAttribute('data-event-id')).toBe(received[0]!.headers['webhook-id']);
    // on a phone the table keeps every column and scrolls sideways, saying so; on a desktop it fits
    const table = added.getByRole('region', { name: `Recent deliveries to ${receiverUrl}` });
    const hint = added.getByTestId('deliveries-scroll-hint');
    expect(await hint.count()).toBe(0);
    await page.setViewportSize(VIEWPORTS.phone);
    await hint.waitFor();
    expect(await hint.isVisible()).toBe(true);
    expect(await table.evaluate((box) => ({ scrolls: box.scrollWidth > box.clientWidth, tabIndex: box.tabIndex }))).toEqual({ scrolls: true, tabIndex: 0 });
    await table.focus();
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => table.evaluate((box) => box.scrollLeft)).toBeGreaterThan(0);
    expect(await added.locator('th', { hasText: 'Next try' }).isVisible()).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'webhook-deliveries-phone');
    await page.setViewportSize(VIEWPORTS.desktop);
    await expect.poll(() => hint.count()).toBe(0);

    // the secret lives in that page only: a reload shows the webhook, never its secret
    await page.reload();
    await added.waitFor();
    expect(await page.getByTestId('webhook-secret').count()).toBe(0);
    expect(await page.content()).not.toContain(secret);

    // disabled after days of failures: the reason is shown, and Enable brings it back
    await db.pool.query(
      `update webhooks set failing_since = now() - interval '6 days', disabled_at = now() - interval '1 hour', disabled_reason = 'Every delivery failed for 5 days (HTTP 500).' where id = $1`,
      [id],
    );
    await page.reload();
    await expect.poll(() => added.getByTestId('webhook-state').innerText()).toBe('Disabled');
    expect(await added.innerText()).toContain('Disabled 1 hour ago: Every delivery failed for 5 days (HTTP 500).');
    expect(await seriousViolations(page)).toEqual([]);
    await added.getByRole('button', { name: `Enable ${receiverUrl}` }).click();
    await expect.poll(() => added.getByTestId('webhook-state').innerText()).toBe('OK');
    expect(await added.getByRole('button', { name: /^Enable/ }).count()).toBe(0);
    expect((await db.pool.query('select disabled_at, failing_since from webhooks where id = $1', [id])).rows[0]).toEqual({
      disabled_at: null,
      failing_since: null,
    });

    page.once('dialog', (dialog) => void dialog.accept());
    await added.getByRole('button', { name: `Remove ${receiverUrl}` }).click();
    await expect.poll(() => added.count()).toBe(0);
    await page.getByText('No webhooks yet').waitFor();
    expect((await db.pool.query('select count(*)::int as n from webhooks')).rows[0].n).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('shows a viewer and an anonymous visitor a sentence instead of the controls, and no nav link', async () => {
    const anonymous = await browser.newPage({ viewport: VIEWPORTS.phone, baseURL: api });
    await anonymous.goto('/webhooks');
    await anonymous.getByText('as an admin to manage webhooks').waitFor();
    expect(await anonymous.getByRole('link', { name: 'Log in' }).first().getAttribute('href')).toMatch(/^\/login\?next=/);
    await anonymous.close();

    const page = await browser.newPage({ viewport: VIEWPORTS.phone, baseURL: api });
    await logInOnPage(page, '/webhooks', 'bob', 'bob-password-12');
    await page.getByTestId('webhooks-admin-only').waitFor();
    expect(await page.getByTestId('webhooks-admin-only').innerText()).toBe('Only admins manage webhooks. Ask an admin of this Kura to add one for you.');
    expect(await page.getByRole('button', { name: 'Add webhook' }).count()).toBe(0);
    expect(await page.getByLabel('URL', { exact: true }).count()).toBe(0);
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'webhooks-viewer-phone');
    await page.close();
  });
});
