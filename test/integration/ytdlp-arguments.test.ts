import { chmod, mkdir, mkdtemp, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createYouTubeSource, createYtDlp } from '../../src/adapters/sources/youtube-source.js';
import { installedYtDlp, ytdlpProgram } from '../../src/adapters/ytdlp/ytdlp-program.js';
import { YTDLP_STAND_IN } from '../support/app.js';

// What every yt-dlp run is handed, as the yt-dlp STAND-IN (test/support/bin) receives it: no config
// file but its arguments, the running node as its JavaScript runtime, and, for a run YouTube refuses
// without them, a private copy of the member's cookies.

const MEMBER_COOKIE = '.youtube.com\tTRUE\t/\tTRUE\t1900000000\tSID\tmember-session';
let dir: string;
let calls: string;
const previousState = process.env.YTDLP_STAND_IN_STATE;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'kura-ytdlp-args-'));
  calls = path.join(dir, 'calls.log');
  const state = {
    videos: { kMembers001: { liveStatus: 'is_upcoming', releaseTimestamp: 1_900_000_000, membersOnly: true } },
    memberCookie: MEMBER_COOKIE,
    calls,
  };
  process.env.YTDLP_STAND_IN_STATE = path.join(dir, 'state.json');
  await writeFile(process.env.YTDLP_STAND_IN_STATE, JSON.stringify(state));
});
afterAll(() => {
  process.env.YTDLP_STAND_IN_STATE = previousState;
});

const runs = async (): Promise<string[][]> =>
  (await readFile(calls, 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
const MEMBERS_ONLY_URL = 'https://www.youtube.com/watch?v=kMembers001';

describe('the yt-dlp Kura runs', () => {
  it('is YTDLP_PATH when set, else the one the installer put under KURA_SYSTEM_DIR, else yt-dlp from the PATH', async () => {
    const systemDir = await mkdtemp(path.join(os.tmpdir(), 'kura-system-'));
    expect(ytdlpProgram(null, { systemDir }).path).toBe('yt-dlp');
    await mkdir(path.dirname(installedYtDlp(systemDir)), { recursive: true });
    await symlink(YTDLP_STAND_IN, installedYtDlp(systemDir));
    expect(ytdlpProgram(null, { systemDir }).path).toBe(path.join(systemDir, 'yt-dlp', 'bin', 'yt-dlp'));
    expect(ytdlpProgram('/opt/yt-dlp', { systemDir }).path).toBe('/opt/yt-dlp');
  });

  it('is given the Deno installed beside it first (yt-dlp takes node only from 22), then this node', async () => {
    const bin = await mkdtemp(path.join(os.tmpdir(), 'kura-ytdlp-bin-'));
    await symlink(YTDLP_STAND_IN, path.join(bin, 'yt-dlp'));
    expect(ytdlpProgram(path.join(bin, 'yt-dlp')).jsRuntimes).toEqual([`node:${process.execPath}`]);
    await writeFile(path.join(bin, 'deno'), '');
    await chmod(path.join(bin, 'deno'), 0o755);
    const program = ytdlpProgram(path.join(bin, 'yt-dlp'));
    expect(program.jsRuntimes).toEqual([`deno:${path.join(bin, 'deno')}`, `node:${process.execPath}`]);
    await createYouTubeSource(createYtDlp(program)).inspect(MEMBERS_ONLY_URL);
    const [args] = (await runs()).slice(-1);
    expect(args?.slice(0, 5)).toEqual(['--ignore-config', '--js-runtimes', `deno:${path.join(bin, 'deno')}`, '--js-runtimes', `node:${process.execPath}`]);
  });
});

describe('every yt-dlp run', () => {
  it('ignores any yt-dlp config file and names the running node as its JavaScript runtime, before the arguments of the look', async () => {
    const source = createYouTubeSource(createYtDlp(ytdlpProgram(YTDLP_STAND_IN)));
    const before = (await runs()).length;
    await source.inspect(MEMBERS_ONLY_URL);
    const look = (await runs()).slice(before);
    // the look from the stream's start (a live refusal is confirmed by a second, HLS look: each run alike)
    expect(look[0]).toEqual([
      '--ignore-config',
      '--js-runtimes',
      `node:${process.execPath}`,
      '-J',
      '--no-playlist',
      '--ignore-no-formats-error',
      '--live-from-start',
      '--',
      MEMBERS_ONLY_URL,
    ]);
    for (const args of look) expect(args.slice(0, 3)).toEqual(['--ignore-config', '--js-runtimes', `node:${process.execPath}`]);
  });

  it('hands a refused run a private copy of the cookies file, which opens a members-only stream and is gone after the run', async () => {
    const cookies = path.join(dir, 'cookies.txt');
    await writeFile(cookies, `# Netscape HTTP Cookie File\n${MEMBER_COOKIE}\n`);
    await chmod(cookies, 0o644);
    const withoutCookies = createYouTubeSource(createYtDlp(ytdlpProgram(YTDLP_STAND_IN)));
    expect(await withoutCookies.inspect(MEMBERS_ONLY_URL)).toMatchObject({ kind: 'rejected', membersOnly: true });

    const member = createYouTubeSource(createYtDlp(ytdlpProgram(YTDLP_STAND_IN, { cookiesFile: cookies })));
    expect(await member.inspect(MEMBERS_ONLY_URL)).toMatchObject({ kind: 'accepted', id: 'kMembers001', details: { membersOnly: true } });
    const [args] = (await runs()).slice(-1);
    const copy = args?.[args.indexOf('--cookies') + 1] ?? '';
    expect(args?.slice(0, 4)).toEqual(['--ignore-config', '--js-runtimes', `node:${process.execPath}`, '--cookies']);
    expect(copy).not.toBe(cookies);
    expect(path.basename(path.dirname(copy))).toMatch(/^kura-cookies-/);
    // the copy is removed with its folder (that folder, not the temp folder's list: other test files make copies at the same time); the operator's file is left as it was
    expect(await stat(path.dirname(copy)).catch(() => null)).toBeNull();
    expect(await readFile(cookies, 'utf8')).toBe(`# Netscape HTTP Cookie File\n${MEMBER_COOKIE}\n`);
  });

  it('fails with words naming the setting, not the cookies, when the cookies file cannot be read', async () => {
    const missing = createYouTubeSource(createYtDlp(ytdlpProgram(YTDLP_STAND_IN, { cookiesFile: path.join(dir, 'no-such-cookies.txt') })));
    expect(await missing.inspect(MEMBERS_ONLY_URL)).toMatchObject({
      kind: 'rejected',
      reason: expect.stringContaining('the cookies file (KURA_YTDLP_COOKIES) cannot be read: ENOENT'),
    });
  });
});
