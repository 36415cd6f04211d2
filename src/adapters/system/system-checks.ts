import { existsSync } from 'node:fs';
import { mkdir, open, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { freeBytes } from '../os/disk-space.js';
import { programVersion } from '../os/program-version.js';
import type { YtDlpProgram } from '../ytdlp/ytdlp-program.js';
import type { Config } from '../../config/config.js';
import { pythonCheck, updateCommand, ytdlpCheck } from './ytdlp-checks.js';

export { updateCommand, YTDLP_MAX_AGE_DAYS } from './ytdlp-checks.js';

/** One thing Kura needs, as found on this machine: what it is, and when it fails, the exact fix. */
export interface SystemCheck {
  name: string;
  ok: boolean;
  detail: string;
  fix?: string;
}

const INSTALL = 'run scripts/install-system-deps.sh as root';

/** The programs Kura runs: ffmpeg, ffprobe, yt-dlp (version floor, age, channel), its challenge solver, JavaScript runtime and Python. */
export async function toolChecks(config: Pick<Config, 'ffmpegPath' | 'ffprobePath'>, ytdlp: YtDlpProgram, now = new Date()): Promise<SystemCheck[]> {
  const [ffmpeg, ffprobe, ytdlpVersion] = await Promise.all([
    programVersion(config.ffmpegPath, ['-version']),
    programVersion(config.ffprobePath, ['-version']),
    programVersion(ytdlp.path, ['--version']),
  ]);
  const media = (name: string, program: string, found: typeof ffmpeg): SystemCheck =>
    found.found
      ? { name, ok: true, detail: `${found.line.split(' Copyright')[0]} (${program})` }
      : { name, ok: false, detail: `${program}: ${found.reason}`, fix: `${INSTALL} (apt-get install ffmpeg), or set ${name.toUpperCase()}_PATH` };
  return [
    media('ffmpeg', config.ffmpegPath, ffmpeg),
    media('ffprobe', config.ffprobePath, ffprobe),
    ytdlpCheck(ytdlp, ytdlpVersion, now),
    // without a yt-dlp, what it would run its challenges with is beside the point
    ...(ytdlpVersion.found ? await solverChecks(ytdlp) : []),
    ...[await pythonCheck(ytdlp)].filter((check) => check !== null),
  ];
}

async function solverChecks(ytdlp: YtDlpProgram): Promise<SystemCheck[]> {
  const deno = ytdlp.jsRuntimes.find((runtime) => runtime.startsWith('deno:'));
  const nodeMajor = Number(process.versions.node.split('.')[0]);
  const runtime: SystemCheck = deno
    ? { name: 'JavaScript runtime', ok: true, detail: `Deno beside yt-dlp (${deno.slice('deno:'.length)})` }
    : nodeMajor >= 22
      ? { name: 'JavaScript runtime', ok: true, detail: `node ${process.version} (${process.execPath})` }
      : {
          name: 'JavaScript runtime',
          ok: false,
          detail: `node ${process.version} is too old for yt-dlp (22 or later) and no Deno is beside ${ytdlp.path}: YouTube formats go missing`,
          fix: `${INSTALL} (it installs yt-dlp with a Deno)`,
        };
  const python = path.join(path.dirname(ytdlp.path), 'python');
  if (!path.isAbsolute(ytdlp.path) || !existsSync(python)) {
    return [runtime, { name: 'challenge solver (EJS)', ok: true, detail: `not checked: ${ytdlp.path} is not the yt-dlp Kura installs` }];
  }
  const ejs = await programVersion(python, ['-c', 'import yt_dlp_ejs, importlib.metadata as m; print(m.version("yt-dlp-ejs"))']);
  const solver: SystemCheck = ejs.found
    ? { name: 'challenge solver (EJS)', ok: true, detail: `yt-dlp-ejs ${ejs.line}` }
    : { name: 'challenge solver (EJS)', ok: false, detail: `yt-dlp-ejs is missing beside ${ytdlp.path}`, fix: updateCommand(ytdlp) };
  return [runtime, solver];
}

/** The cookies file, when set: readable, in Netscape format, and readable by Kura's user alone. */
export async function cookiesCheck(config: Config): Promise<SystemCheck> {
  const file = config.ytdlpCookies;
  if (file === null) return { name: 'cookies', ok: true, detail: 'none (KURA_YTDLP_COOKIES unset: members-only streams are refused)' };
  try {
    const [info, handle] = await Promise.all([stat(file), open(file, 'r')]);
    const head = (await handle.read(Buffer.alloc(64), 0, 64, 0)).buffer.toString('utf8');
    await handle.close();
    if (!/^# (Netscape )?HTTP Cookie File/.test(head)) {
      return { name: 'cookies', ok: false, detail: `${file} is not a Netscape cookies.txt`, fix: 'export the cookies again in Netscape format (cookies.txt)' };
    }
    if ((info.mode & 0o077) !== 0) return { name: 'cookies', ok: false, detail: `${file} is readable by other users`, fix: `chmod 600 ${file}` };
    return { name: 'cookies', ok: true, detail: `${file} (readable by its owner only)` };
  } catch (error) {
    return {
      name: 'cookies',
      ok: false,
      detail: `${file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      fix: 'check KURA_YTDLP_COOKIES',
    };
  }
}

/** The data directory (archives with local storage, the spool either way): writable, and how much room is left. */
export async function dataDirCheck(config: Config): Promise<SystemCheck> {
  const probe = path.join(config.dataDir, `.kura-doctor-${process.pid}`);
  try {
    await mkdir(config.dataDir, { recursive: true });
    await writeFile(probe, 'probe');
    await rm(probe);
    const free = await freeBytes(config.dataDir);
    return { name: 'data directory', ok: true, detail: `${config.dataDir}: writable, ${(free / 1e9).toFixed(1)} GB free` };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    return { name: 'data directory', ok: false, detail: `${config.dataDir} is not writable (${code})`, fix: 'set KURA_DATA_DIR to a folder Kura may write' };
  }
}

/**
 * Logs, one line each, which ffmpeg and yt-dlp (with its runtime and solver) this process found,
 * or what is missing and the fix; and the cookies file's trouble when one is set (readable by
 * other users, unreadable, not Netscape).
 */
export async function logToolChecks(config: Config, ytdlp: YtDlpProgram, log: { info(message: string): void; warn(message: string): void }): Promise<void> {
  const cookies = config.ytdlpCookies === null ? [] : [await cookiesCheck(config)];
  for (const check of [...(await toolChecks(config, ytdlp)), ...cookies]) {
    if (check.ok) log.info(`${check.name}: ${check.detail}`);
    else log.warn(`${check.name}: ${check.detail}${check.fix ? `; fix: ${check.fix}` : ''}`);
  }
}

/** The public URL links and feeds are made with. */
export function publicUrlCheck(config: Config): SystemCheck {
  const local = ['localhost', '127.0.0.1', '[::1]'].includes(new URL(config.publicUrl).hostname);
  return { name: 'public URL', ok: true, detail: `${config.publicUrl}${local ? ' (this machine only: set KURA_PUBLIC_URL for others to follow links)' : ''}` };
}
