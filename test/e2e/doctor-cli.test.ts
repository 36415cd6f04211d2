import { chmod, mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { YTDLP_STAND_IN } from '../support/app.js';
import { runKura } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

// The built `kura doctor` on a real database, with the yt-dlp STAND-IN where Kura's installer
// would put yt-dlp (a folder with a Deno beside it) or nowhere at all.
let cwd: string;
let db: TestDatabase;
let bin: string;
beforeEach(async () => {
  cwd = await mkdtemp(path.join(os.tmpdir(), 'kura-doctor-'));
  db = await createTestDatabase();
  bin = path.join(cwd, 'yt-dlp-env', 'bin');
  await mkdir(bin, { recursive: true });
  await symlink(YTDLP_STAND_IN, path.join(bin, 'yt-dlp'));
  await writeFile(path.join(bin, 'deno'), '#!/bin/sh\n');
  await chmod(path.join(bin, 'deno'), 0o755);
});
afterEach(() => db.drop());

const doctor = (env: Record<string, string> = {}) =>
  runKura(['doctor'], { DATABASE_URL: db.url, KURA_DATA_DIR: path.join(cwd, 'data'), LOG_LEVEL: 'warn', YTDLP_PATH: path.join(bin, 'yt-dlp'), ...env }, cwd);

describe('kura doctor', () => {
  it('says ✔ for each thing Kura needs when all is there, and exits 0', async () => {
    const cookies = path.join(cwd, 'cookies.txt');
    await writeFile(cookies, '# Netscape HTTP Cookie File\n.youtube.com\tTRUE\t/\tTRUE\t1900000000\tSID\tmember\n');
    await chmod(cookies, 0o600);
    const run = await doctor({ KURA_YTDLP_COOKIES: cookies, KURA_YTDLP_CHANNEL: 'nightly' });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^✔ yt-dlp: \d{4}\.\d{2}\.\d{2} \(.+\), 3 days old, nightly channel$/m);
    for (const name of [
      'ffmpeg',
      'ffprobe',
      'yt-dlp',
      'JavaScript runtime',
      'challenge solver (EJS)',
      'cookies',
      'data directory',
      'database',
      'storage (local disk)',
      'public URL',
    ]) {
      expect(run.stdout, name).toMatch(new RegExp(`^✔ ${name.replace(/[()]/g, '\\$&')}: `, 'm'));
    }
    expect(run.stdout).toMatch(/^✔ JavaScript runtime: Deno beside yt-dlp/m);
    expect(run.stdout).toMatch(/^✔ database: DATABASE_URL: PostgreSQL \d+/m);
    expect(run.stdout).toContain('kura: everything Kura needs is here');
  });

  it('says ✘ with the exact fix for a cookies file others can read, a yt-dlp too old to record from the start, an old one, and a missing one; exits 1', async () => {
    const cookies = path.join(cwd, 'cookies.txt');
    await writeFile(cookies, '# Netscape HTTP Cookie File\n');
    await chmod(cookies, 0o644);
    const shared = await doctor({ KURA_YTDLP_COOKIES: cookies, YTDLP_STAND_IN_VERSION: '2025.06.01' });
    expect(shared.code).toBe(1);
    expect(shared.stdout).toContain(`✘ cookies: ${cookies} is readable by other users\n    fix: chmod 600 ${cookies}\n`);
    expect(shared.stdout).toMatch(
      /^✘ yt-dlp: 2025\.06\.01 \(.+\), \d+ days old, stable channel: older than 2026\.07\.04, the first yt-dlp that lists YouTube live streams' formats from their start\n {4}fix: update it: .+ -U$/m,
    );
    expect(shared.stdout).toContain('✔ search (builtin): fits this archive');
    expect(shared.stdout).toContain('kura: 2 of 11 checks failed');

    // past the floor, yet older than 90 days; on the nightly channel, updated to the nightly
    const stale = await doctor({ YTDLP_STAND_IN_VERSION: '2026.07.04', KURA_YTDLP_CHANNEL: 'nightly' });
    expect(stale.stdout).toMatch(/^✘ yt-dlp: 2026\.07\.04 \(.+\), \d+ days old, nightly channel\n {4}fix: update it: .+ --update-to nightly$/m);

    const missing = await doctor({ YTDLP_PATH: path.join(cwd, 'no-yt-dlp') });
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain(
      `✘ yt-dlp: ${path.join(cwd, 'no-yt-dlp')}: not found (YouTube URLs are refused; HLS works)\n    fix: run scripts/install-system-deps.sh as root, or set YTDLP_PATH\n`,
    );
    // nothing about what a missing yt-dlp would run its challenges with
    expect(missing.stdout).not.toMatch(/JavaScript runtime|challenge solver/);
    expect(missing.stdout).toContain('kura: 1 of 9 checks failed');
  });
});
