import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, logInOnPage, screenshot, seriousViolations, VIEWPORTS } from '../support/browser.js';
import { prepareBrowserKura, type BrowserKura } from '../support/browser-kura.js';
import { runKura } from '../support/cli.js';
import type { TestDatabase } from '../support/database.js';
import { buildRecord } from '../support/factories.js';
import { queueSubmitted } from '../support/webhooks.js';

// The follows page in Debian's Chromium against a real `kura serve`. beforeAll follows three HLS
// endpoints: a server of the test's that answers 404 (offline, so ok; not Kura itself, which may
// not listen yet at its first check), a port nothing listens on (its signal
// fails) and the same failing for two hours (unhealthy). Checks run once (a day's interval).
let served: BrowserKura;
let db: TestDatabase;
let api: string;
let cwd: string;
let browser: Browser;
let env: () => Record<string, string>;
let broken: string;
/** An HLS endpoint that is up but off the air: every playlist is 404. */
let offAir: http.Server;

async function follow(url: string, channel: string, options: string[] = []): Promise<string> {
  const added = await runKura(['follow', 'add', url, '--channel', channel, ...options], env(), cwd);
  expect(added.code, added.stderr).toBe(0);
  return added.stdout.trim();
}

beforeAll(async () => {
  served = await prepareBrowserKura('kura-follows-page-', () => ({ KURA_FOLLOW_POLL_SECONDS: '86400' }));
  ({ db, api, cwd, env } = served);
  const dead = `http://127.0.0.1:${await freePort()}`;
  expect((await runKura(['user', 'add', 'alice', '--admin'], env(), cwd, 'alice-password-1\n')).code).toBe(0);
  offAir = http.createServer((_request, response) => response.writeHead(404).end());
  await new Promise<void>((resolve) => offAir.listen(0, '127.0.0.1', resolve));
  await follow(`http://127.0.0.1:${(offAir.address() as { port: number }).port}/offline/index.m3u8`, 'Quiet Stage');
  await follow(`${dead}/a/index.m3u8`, 'Flaky Stage');
  broken = await follow(`${dead}/b/index.m3u8`, 'Broken Stage');
  ({ browser } = await served.start());
}, 120_000);

afterAll(async () => {
  await served?.stop();
  offAir?.close();
});

const navCurrent = (page: Page) => page.getByRole('navigation', { name: 'Main' }).locator('[aria-current=page]').innerText();
const card = (page: Page, name: string) => page.locator('[data-testid=follow]', { has: page.getByRole('heading', { name, exact: true }) });

describe('the follows page', () => {
  it("lists every follow with its health, flags the unhealthy one with its signal's error, and opens a follow's details", async () => {
    // every follow checked once (due at creation): the dead port's signals failed; one of them for two hours
    await expect
      .poll(() => db.pool.query('select count(*)::int as n from follows where last_checked_at is null').then((r) => r.rows[0].n), { timeout: 30_000 })
      .toBe(0);
    await db.pool.query(`update follows set failing_since = now() - interval '2 hours' where id = $1`, [broken]);
    const page = await browser.newPage({ viewport: VIEWPORTS.desktop, baseURL: api });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto('/history');
    await page.getByRole('link', { name: 'Follows', exact: true }).click();
    await page.waitForURL('**/follows');
    await card(page, 'Quiet Stage').waitFor();
    expect(await card(page, 'Quiet Stage').locator('.badge').innerText()).toBe('OK');
    expect(await card(page, 'Flaky Stage').locator('.badge').innerText()).toBe('Failing');
    const unhealthy = card(page, 'Broken Stage');
    expect(await unhealthy.locator('.badge').innerText()).toBe('⚠ Unhealthy');
    expect(await unhealthy.innerText()).toMatch(/every signal failing since 2 hours ago/);
    // the signal's own words (the connection refused), not only a colour
    expect(await unhealthy.getByRole('list', { name: /Failing signals/ }).innerText()).toMatch(/^playlist: .+/);
    expect(await page.getByRole('status').innerText()).toContain('1 follow is unhealthy');
    // a day's interval with ±10 % jitter: "in 23 hours" or "tomorrow"
    expect(await card(page, 'Quiet Stage').innerText()).toMatch(/Checked .+ ago[\s\S]*next check (in .+|tomorrow)[\s\S]*0 streams queued/);
    // nobody logged in: no form, no buttons
    expect(await page.getByRole('button', { name: /Pause|Remove/ }).count()).toBe(0);
    expect(await page.getByLabel('Channel or playlist URL').count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'follows-desktop');

    await card(page, 'Quiet Stage').getByRole('link', { name: 'Details of Quiet Stage' }).click();
    await page.getByRole('heading', { level: 1, name: 'Follow: Quiet Stage' }).waitFor();
    await expect.poll(() => page.title()).toBe('Quiet Stage · Follows · Kura');
    await page.getByText('No stream seen yet.').waitFor();
    expect(await navCurrent(page)).toBe('Follows');
    expect(await seriousViolations(page)).toEqual([]);

    // the channels index marks the followed channels, here all of them (no record yet)
    await page.getByRole('link', { name: 'Channels', exact: true }).click();
    const listed = page.locator('[data-testid=channel-list] > li', { hasText: 'Quiet Stage' });
    await expect.poll(() => listed.getByTestId('channel-followed').innerText()).toBe('Followed');

    // the followed channel's page, before any record: found, with the follow and its health
    await listed.getByRole('link', { name: 'Quiet Stage', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Quiet Stage' }).waitFor();
    expect(page.url()).toBe(`${api}/channel/quiet-stage`);
    await expect.poll(() => page.getByTestId('channel-follow').innerText()).toMatch(/Followed · .*offline\/index\.m3u8 OK/);
    expect(await navCurrent(page)).toBe('Channels');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('names the follow that queued a record on its archive page, with a link to the follow', async () => {
    const id = 'hls-queued-by-follow';
    await queueSubmitted(db, id, { submitter: `follow/${broken}` });
    const page = await browser.newPage({ viewport: VIEWPORTS.desktop, baseURL: api });
    await page.goto(`/archive/${id}`);
    const submitter = page.getByTestId('submitter-follow');
    await expect.poll(() => submitter.innerText()).toBe('the follow Broken Stage');
    await submitter.click();
    await page.getByRole('heading', { level: 1, name: 'Follow: Broken Stage' }).waitFor();
    await page.close();
  });

  it('lets an admin follow an endpoint, shows the API’s problem for a bad rule, pause it, resume it and remove it', async () => {
    const page = await browser.newPage({ viewport: VIEWPORTS.phone, baseURL: api });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await logInOnPage(page, '/follows');
    await page.waitForURL('**/follows');

    // on a phone the list comes first: the form waits behind a button, and a follow shows in the first screen
    await card(page, 'Quiet Stage').waitFor();
    expect(await page.getByLabel('Channel or playlist URL').count()).toBe(0);
    expect((await card(page, 'Quiet Stage').boundingBox())!.y).toBeLessThan(VIEWPORTS.phone.height - 100);
    await page.getByRole('button', { name: 'Add a follow' }).click();
    expect(await page.getByRole('button', { name: 'Close the form' }).getAttribute('aria-expanded')).toBe('true');
    // members-only streams are YouTube's: the choice goes once the URL is an HLS endpoint's
    await page.getByLabel('Channel or playlist URL').fill('https://www.youtube.com/@someone');
    expect(await page.getByLabel(/Members-only streams/).count()).toBe(1);
    await page.getByLabel('Channel or playlist URL').fill(`${api}/rehearsal/index.m3u8`);
    expect(await page.getByLabel(/Members-only streams/).count()).toBe(0);
    await page.getByLabel('Channel name').fill('Rehearsal Room');
    await page.getByLabel(/Title must match/).fill('(unclosed');
    await page.getByRole('button', { name: 'Follow', exact: true }).click();
    await expect.poll(() => page.getByTestId('follow-problem').innerText()).toMatch(/^titleInclude is not a valid regular expression: .*unclosed/i);
    expect(await card(page, 'Rehearsal Room').count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByLabel(/Title must match/).fill('rehearsal|practice');
    await page.getByRole('button', { name: 'Follow', exact: true }).click();
    const added = card(page, 'Rehearsal Room');
    await added.waitFor();
    expect(await page.getByTestId('follow-problem').count()).toBe(0);
    expect(await page.getByLabel('Channel or playlist URL').count()).toBe(0); // saved: the form closes
    expect(await added.innerText()).toContain('title matches rehearsal|practice');
    expect(await added.innerText()).not.toContain('members-only');
    await screenshot(page, 'follows-admin-phone');

    await added.getByRole('button', { name: 'Pause Rehearsal Room' }).click();
    await expect.poll(() => added.locator('.badge').innerText()).toBe('Paused');
    await added.getByRole('button', { name: 'Resume Rehearsal Room' }).click();
    await expect.poll(() => added.locator('.badge').innerText()).not.toBe('Paused');

    page.once('dialog', (dialog) => void dialog.accept());
    await added.getByRole('button', { name: 'Remove Rehearsal Room' }).click();
    await expect.poll(() => added.count()).toBe(0);
    const { rows } = await db.pool.query(`select count(*)::int as n from follows where channel_name = 'Rehearsal Room'`);
    expect(rows[0].n).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("lets an admin edit a follow's rules on its page, shows the API's reason for a bad rule, and shows others no edit controls", async () => {
    const id = await follow(`${api}/edited/index.m3u8`, 'Editing Stage', ['--title-exclude', 'rerun', '--quality', '1080p']);
    const rules = async () =>
      (await db.pool.query('select channel_name, title, title_include, title_exclude, quality from follows where id = $1', [id])).rows[0];

    // nobody logged in: the rules are shown, with no way to change them
    const anonymous = await browser.newPage({ viewport: VIEWPORTS.desktop, baseURL: api });
    await anonymous.goto(`/follows/${id}`);
    await anonymous.getByRole('heading', { level: 1, name: 'Follow: Editing Stage' }).waitFor();
    expect(await anonymous.getByTestId('follow').innerText()).toContain('title does not match rerun');
    expect(await anonymous.getByRole('button', { name: 'Edit the rules' }).count()).toBe(0);
    expect(await anonymous.getByLabel(/Title must match/).count()).toBe(0);
    await anonymous.close();

    const page = await browser.newPage({ viewport: VIEWPORTS.phone, baseURL: api });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await logInOnPage(page, `/follows/${id}`);
    await page.getByRole('heading', { level: 1, name: 'Follow: Editing Stage' }).waitFor();
    await page.getByRole('button', { name: 'Edit the rules' }).click();
    // the form starts from the follow's rules; no URL field: a follow's source does not change
    expect(await page.getByLabel(/Title must not match/).inputValue()).toBe('rerun');
    expect(await page.getByLabel(/Quality/).inputValue()).toBe('1080p');
    expect(await page.getByLabel('Channel or playlist URL').count()).toBe(0);
    expect(await page.getByLabel(/Members-only streams/).count()).toBe(0); // an HLS endpoint has none

    await page.getByLabel(/Title must match/).fill('(unclosed');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => page.getByTestId('follow-problem').innerText()).toMatch(/^titleInclude is not a valid regular expression: .*unclosed/i);
    expect(await rules()).toMatchObject({ title_include: null, title_exclude: 'rerun' });
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'follow-edit-phone');

    await page.getByLabel(/Title must match/).fill('karaoke|singing');
    await page.getByLabel(/Title must not match/).fill('');
    await page.getByLabel(/Quality/).fill('720p');
    await page.getByLabel('Channel name').fill('Edited Stage');
    await page.getByLabel('Record title').fill('Late show');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Follow: Edited Stage' }).waitFor();
    expect(await page.getByRole('button', { name: 'Save', exact: true }).count()).toBe(0);
    const shown = await page.getByTestId('follow').innerText();
    expect(shown).toContain('title matches karaoke|singing');
    expect(shown).not.toContain('title does not match');
    expect(shown).toContain('quality: 720p');
    // the cleared rule is cleared (null), not an empty pattern that would match every title
    expect(await rules()).toEqual({ channel_name: 'Edited Stage', title: 'Late show', title_include: 'karaoke|singing', title_exclude: null, quality: '720p' });

    // retention: the preview of a limit (the follow queued nothing yet), then the limit saved on the follow
    await page.getByLabel('Keep the last N archives').fill('3');
    await page.getByRole('button', { name: 'Preview' }).click();
    await expect.poll(() => page.getByTestId('retention-preview').innerText()).toBe('would remove 0 archives, 0 B');
    await page.getByRole('button', { name: 'Save retention' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    const kept = await db.pool.query('select retention_keep_last, retention_max_age_days, retention_max_gb from follows where id = $1', [id]);
    expect(kept.rows[0]).toEqual({ retention_keep_last: 3, retention_max_age_days: null, retention_max_gb: null });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('says a check whose time has passed is due now, never "next check … ago"', async () => {
    const page = await browser.newPage({ viewport: VIEWPORTS.desktop, baseURL: api });
    // the browser's clock two days on: every next check (a day's interval) is in its past
    await page.clock.install({ time: Date.now() + 2 * 86_400_000 });
    await page.goto('/follows');
    const facts = card(page, 'Quiet Stage').locator('.facts').first();
    await expect.poll(() => facts.innerText()).toMatch(/next check due now/);
    expect(await page.locator('[data-testid=follow]').allInnerTexts()).not.toContainEqual(expect.stringMatching(/next check [^\n]*ago/));
    await page.close();
  });

  it('draws one month of growth on a short axis labelled by month, with the month and its totals in the legend', async () => {
    // one finished record, in March 2025: the archive's whole history is one month
    const file = path.join(cwd, 'one-month.json');
    await writeFile(file, JSON.stringify([buildRecord({ id: 'oneMonth001', scheduledStart: '2025-03-10T20:00:00Z', fileSizeBytes: 2_500_000_000 })]));
    expect((await runKura(['import', file], env(), cwd)).code).toBe(0);
    // one page, loaded again at each width and theme
    const page = await browser.newPage({ viewport: VIEWPORTS.phone, baseURL: api });
    for (const [name, viewport] of [
      ['phone', VIEWPORTS.phone],
      ['desktop', { width: 1366, height: 900 }],
    ] as const) {
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.setViewportSize(viewport);
        await page.emulateMedia({ colorScheme });
        await page.goto('/stats');
        const chart = page.getByTestId('growth-chart');
        await expect.poll(() => chart.getAttribute('data-months')).toBe('Mar 2025');
        const legend = await page.locator('.u-legend').innerText();
        expect(legend).toMatch(/Month\s*Mar 2025/);
        expect(legend).toMatch(/Archived streams\s*1/);
        expect(legend).toMatch(/Stored\s*2\.5 GB/);
        expect(legend).not.toContain('--');
        expect(await seriousViolations(page)).toEqual([]);
        await screenshot(page, `stats-one-month-${name}-${colorScheme}`);
      }
    }
    await page.close();
  });
});
