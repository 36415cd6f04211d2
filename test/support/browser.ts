import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { readPackageInfo } from '../../src/adapters/os/package-info.js';

/** Debian's Chromium (scripts/install-system-deps.sh installs it). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOT_DIR = path.join(readPackageInfo().root, 'test-artifacts', 'screenshots');
export const VIEWPORTS = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } } as const;

/** Headless Chromium that talks to nothing but the pages it is sent to (no background fetches). */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--no-sandbox',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-gpu',
      '--autoplay-policy=no-user-gesture-required',
    ],
  });
}

/** A TCP port free on 127.0.0.1 now, so a server's public URL can be known before it starts. */
export async function freePort(): Promise<number> {
  // below Linux's ephemeral range (32768–60999): a port there is never handed to an outgoing
  // connection or a listen on port 0 meanwhile (one was, between this choice and the server's
  // listen, and `kura serve` failed EADDRINUSE in a full run); free now, checked by listening on it
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await listensOn(port)) return port;
  }
}

/** Whether a server could listen on `port` of 127.0.0.1 just now (it is closed again). */
function listensOn(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Logs in through the login page, which then leads to `next`; the caller waits for what shows there. */
export async function logInOnPage(page: Page, next: string, username = 'alice', password = 'alice-password-1'): Promise<void> {
  await page.goto(`/login?next=${next}`);
  await page.getByLabel('User name').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
}

/** Saves a full-page screenshot as test-artifacts/screenshots/NAME.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

let axeSource: Promise<string> | null = null;

/** The serious and critical axe-core violations of the page as it is now, as readable lines. */
export async function seriousViolations(page: Page): Promise<string[]> {
  axeSource ??= readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await page.addScriptTag({ content: await axeSource });
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run: (
            context: Document,
            options: object,
          ) => Promise<{ violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[] }> }> }>;
        };
      }
    ).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 3).map((n) => JSON.stringify(n.target)) }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.targets.join(', ')}`);
}
