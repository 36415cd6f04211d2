import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { freePort, launchBrowser } from './browser.js';
import { spawnKura, type KuraProcess } from './cli.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { e2eEnv } from './serve-env.js';

/** A `kura serve` of its own (database, folder, port) and a Chromium to browse it: see `prepareBrowserKura`. */
export interface BrowserKura {
  db: TestDatabase;
  /** The folder `kura` runs in; its data directory is `data` inside. */
  cwd: string;
  /** Where the server answers (also its KURA_PUBLIC_URL), e.g. `http://127.0.0.1:PORT`. */
  api: string;
  /** The environment every `kura` command of this test file runs with. */
  env(): Record<string, string>;
  /** Starts `kura serve`, waits until it listens, then launches the browser. */
  start(): Promise<{ kura: KuraProcess; browser: Browser }>;
  /** Closes the browser, kills the server and drops the database (whichever of them exist). */
  stop(): Promise<void>;
}

/**
 * Makes the database, folder and port of a browser test file; the file loads what it needs with
 * `env()`, then calls `start()` (in beforeAll) and `stop()` (in afterAll). `extra(cwd)` adds to
 * the e2e environment.
 */
export async function prepareBrowserKura(folderPrefix: string, extra: (cwd: string) => Record<string, string> = () => ({})): Promise<BrowserKura> {
  const db = await createTestDatabase();
  const cwd = await mkdtemp(path.join(os.tmpdir(), folderPrefix));
  const api = `http://127.0.0.1:${await freePort()}`;
  const env = () => e2eEnv(db.url, path.join(cwd, 'data'), { PORT: new URL(api).port, HOST: '127.0.0.1', KURA_PUBLIC_URL: api, ...extra(cwd) });
  let kura: KuraProcess | undefined;
  let browser: Browser | undefined;
  return {
    db,
    cwd,
    api,
    env,
    async start() {
      kura = spawnKura(['serve'], env(), cwd);
      await kura.waitForLog((l) => l.msg === 'kura api listening');
      browser = await launchBrowser();
      return { kura, browser };
    },
    async stop() {
      await browser?.close();
      kura?.child.kill('SIGKILL');
      await kura?.exited;
      await db.drop();
    },
  };
}
