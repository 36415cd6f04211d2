import { existsSync } from 'node:fs';
import { chmod, lstat, mkdtemp, readdir, readlink, rename, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { ensurePostgresAccount, runsAs } from '../../src/adapters/embedded-postgres/system-account.js';
import { bundledPrograms, postgresBinary } from '../../src/adapters/embedded-postgres/postgres-programs.js';
import { freePort, launchBrowser, screenshot, seriousViolations } from '../support/browser.js';
import { runKura, spawnKura, type KuraProcess } from '../support/cli.js';

// The first run as a new operator does it: `kura serve` with the embedded PostgreSQL, in a folder
// only its owner may enter (root's home is 0700, as is any `mktemp -d`). As root, PostgreSQL runs
// as the postgres user, who cannot enter it; KURA_SYSTEM_DIR stands in for /var/lib/kura so the
// test leaves nothing behind. As another user, the same test proves the unchanged path.
const asRoot = os.userInfo().uid === 0;
const PUBLIC_URL = 'http://kura.test';
const SAME_ORIGIN = { origin: PUBLIC_URL, 'content-type': 'application/json' };

let home: string;
let systemParent: string;
let systemDir: string;
beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), 'kura-home-')); // 0700
  systemParent = await mkdtemp(path.join(os.tmpdir(), 'kura-system-'));
  await chmod(systemParent, 0o755); // as /var/lib is
  systemDir = path.join(systemParent, 'kura');
});

const env = (dataDir: string, extra: Record<string, string> = {}) => ({
  KURA_DATA_DIR: dataDir,
  KURA_SYSTEM_DIR: systemDir,
  KURA_PUBLIC_URL: PUBLIC_URL,
  PORT: '0',
  LOG_LEVEL: 'info',
  ...extra,
});

async function serve(dataDir: string): Promise<{ kura: KuraProcess; url: string }> {
  const kura = spawnKura(['serve'], env(dataDir), home);
  const listening = await kura.waitForLog((line) => line.msg === 'kura api listening');
  return { kura, url: listening.url as string };
}

async function stop(kura: KuraProcess): Promise<void> {
  kura.child.kill('SIGTERM');
  expect((await kura.exited).code).toBe(0);
}

const post = (url: string, body: object) => fetch(url, { method: 'POST', headers: SAME_ORIGIN, body: JSON.stringify(body) });
const setupRequired = async (url: string) => ((await (await fetch(`${url}/auth/providers`)).json()) as { setupRequired: boolean }).setupRequired;

describe('the first run', () => {
  it('starts in a 0700 folder, tells how to make the admin, and starts again on the same cluster after the folder moved', async () => {
    const dataDir = path.join(home, 'data');
    const first = await serve(dataDir);
    expect((await fetch(`${first.url}/readyz`)).status).toBe(200);

    const link = await lstat(path.join(dataDir, 'postgres'));
    expect(link.isSymbolicLink()).toBe(asRoot);
    let cluster = path.join(dataDir, 'postgres');
    if (asRoot) {
      cluster = await readlink(path.join(dataDir, 'postgres'));
      expect(cluster).toMatch(new RegExp(`^${systemDir}/postgres/[0-9a-f]{16}$`));
      const owned = await stat(cluster);
      expect(owned.uid).not.toBe(0); // the postgres user's, as initdb made it
      expect(owned.mode & 0o777).toBe(0o700);
      const note = await first.kura.waitForLog((line) => String(line.msg).startsWith('the embedded PostgreSQL cluster is kept in'));
      expect(note.msg).toBe(
        `the embedded PostgreSQL cluster is kept in ${cluster} (${dataDir}/postgres links there): the postgres user cannot enter ${dataDir}`,
      );
    } else {
      expect(existsSync(systemDir)).toBe(false);
    }
    expect(existsSync(path.join(cluster, 'PG_VERSION'))).toBe(true);
    expect((await stat(home)).mode & 0o777).toBe(0o700); // the home was left as it was

    // no admin yet: the log says how to make one, with a token the login page takes once
    const hint = await first.kura.waitForLog((line) => String(line.msg).startsWith('No admin account yet'));
    const token = /the setup token ([0-9a-f]{32}),/.exec(String(hint.msg))?.[1] as string;
    expect(hint.msg).toBe(
      `No admin account yet: open ${PUBLIC_URL}/login and enter the setup token ${token}, or run: printf '%s' "$PASSWORD" | npx kura user add NAME --admin`,
    );
    expect(await setupRequired(first.url)).toBe(true);
    const wrong = await post(`${first.url}/auth/setup`, { token: 'f'.repeat(32), username: 'boss', password: 'correct horse' });
    expect(wrong.status).toBe(403);
    expect(await wrong.json()).toMatchObject({ code: 'invalid_setup_token' });
    const made = await post(`${first.url}/auth/setup`, { token, username: 'boss', password: 'correct horse' });
    expect(made.status).toBe(200);
    const cookie = (made.headers.get('set-cookie') as string).split(';')[0] as string;
    const me = await fetch(`${first.url}/api/user`, { headers: { cookie } });
    expect(await me.json()).toMatchObject({ id: 'boss', provider: 'local', role: 'admin' });
    const again = await post(`${first.url}/auth/setup`, { token, username: 'eve', password: 'correct horse' });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ code: 'setup_done' });
    expect(await setupRequired(first.url)).toBe(false);
    await stop(first.kura);

    // the symlink is what later starts follow: the data directory may move
    const moved = path.join(home, 'moved');
    await rename(dataDir, moved);
    const second = await serve(moved);
    expect(await setupRequired(second.url)).toBe(false);
    const login = await post(`${second.url}/auth/local`, { username: 'boss', password: 'correct horse' });
    expect(login.status).toBe(200); // the account made before the move is there
    if (asRoot) {
      expect(await readlink(path.join(moved, 'postgres'))).toBe(cluster);
      expect(await readdir(path.join(systemDir, 'postgres'))).toEqual([path.basename(cluster)]);
    }
    await stop(second.kura);
    const { stdout } = await second.kura.exited;
    expect(stdout).not.toContain('No admin account yet');
  });

  it('the login page takes the setup token in its first-run form and logs the new admin in', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const kura = spawnKura(['serve'], env(path.join(home, 'data'), { PORT: String(port), KURA_PUBLIC_URL: url }), home);
    const hint = await kura.waitForLog((line) => String(line.msg).startsWith('No admin account yet'));
    await kura.waitForLog((line) => line.msg === 'kura api listening');
    const token = /the setup token ([0-9a-f]{32}),/.exec(String(hint.msg))?.[1] as string;
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage({ baseURL: url });
      await page.goto('/login?next=/stats');
      await page.getByLabel('Setup token').fill(token);
      await page.getByLabel('Admin user name').fill('boss');
      await page.getByLabel('Admin password (8 characters or more)').fill('correct horse');
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, 'login-first-run');
      await page.getByRole('button', { name: 'Create the admin and log in' }).click();
      await page.waitForURL(`${url}/stats`);
      const me = await page.request.get('/api/user');
      expect(await me.json()).toMatchObject({ id: 'boss', role: 'admin' });
      await page.goto('/login');
      await page.getByText('You are logged in as').waitFor();
      expect(await page.getByLabel('Setup token').count()).toBe(0);
    } finally {
      await browser.close();
      await stop(kura);
    }
  });

  it('refuses a data directory that is a file in one sentence, exit 2, creating nothing', async () => {
    const dataDir = path.join(home, 'data');
    await writeFile(dataDir, 'not a directory');
    const result = await runKura(['serve'], env(dataDir), home);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `kura: cannot start: KURA_DATA_DIR (${dataDir}) is a file, not a directory: set KURA_DATA_DIR to a directory, or move the file away.\n`,
    );
    expect(await readdir(home)).toEqual(['data']);
    expect(existsSync(systemDir)).toBe(false);
  });

  it('as root, refuses in one sentence (exit 2, nothing created) when the cluster can go neither in the data directory nor under KURA_SYSTEM_DIR', async () => {
    const dataDir = path.join(home, 'data');
    await writeFile(path.join(systemParent, 'blocker'), '');
    systemDir = path.join(systemParent, 'blocker', 'kura');
    const result = await runKura(['migrate'], env(dataDir), home);
    if (!asRoot) {
      // PostgreSQL runs as this user, who can enter its own folder: KURA_SYSTEM_DIR is not used
      expect(result.code, result.stderr).toBe(0);
      return;
    }
    // in a clone under /root the postgres user cannot run PostgreSQL from node_modules either, and
    // Kura finds that first: its programs would have gone to KURA_SYSTEM_DIR too
    const programs = await bundledPrograms();
    const installReachable = await runsAs(await ensurePostgresAccount(), postgresBinary(programs), ['--version']);
    const [blocked, kept] = installReachable ? [`enter ${dataDir}`, 'the cluster'] : [`run PostgreSQL from ${programs.root}`, 'its programs'];
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `kura: cannot start: As root, Kura runs PostgreSQL as the postgres user, who cannot ${blocked}, and ${systemDir}, where Kura would keep ${kept} instead, is no good (${systemParent}/blocker is not a directory): set KURA_SYSTEM_DIR to a directory root may write and the postgres user may enter.\n`,
    );
    expect(await readdir(home)).toEqual([]);
  });
});
