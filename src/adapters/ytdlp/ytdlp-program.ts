// Decisions: docs/decisions/0020-youtube-through-yt-dlp.md
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, copyFile, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** The yt-dlp Kura runs, and what every run of it is handed. */
export interface YtDlpProgram {
  /** The program: YTDLP_PATH, else the one Kura's installer put under KURA_SYSTEM_DIR, else `yt-dlp` from the PATH. */
  path: string;
  /** KURA_YTDLP_COOKIES: a Netscape cookies.txt (a member's), handed only to runs that need it (0089); null: none. */
  cookiesFile: string | null;
  /** The JavaScript runtimes yt-dlp may solve YouTube's challenges with, as `--js-runtimes` values, best first. */
  jsRuntimes: string[];
  /** KURA_YTDLP_CHANNEL: which releases Kura installs and updates to (`nightly`: pip's `--pre`). */
  channel: YtDlpChannel;
}

/** yt-dlp's release channels on PyPI: `stable` releases, and `nightly` ones as pre-releases (`pip install --pre`). */
export type YtDlpChannel = 'stable' | 'nightly';

/** Where scripts/install-system-deps.sh puts yt-dlp: a virtual environment under KURA_SYSTEM_DIR. */
export function installedYtDlp(systemDir: string): string {
  return path.join(systemDir, 'yt-dlp', 'bin', 'yt-dlp');
}

/**
 * The yt-dlp to run: `configured` (YTDLP_PATH) when set, else the one the installer put under
 * `systemDir` when it is there, else `yt-dlp` from the PATH. Its JavaScript runtimes: the Deno
 * installed beside it (yt-dlp's `deno` extra), then the node running Kura — yt-dlp takes the
 * first it supports (node only from version 22).
 */
export function ytdlpProgram(
  configured: string | null,
  options: { cookiesFile?: string | null; systemDir?: string; channel?: YtDlpChannel } = {},
): YtDlpProgram {
  const installed = options.systemDir === undefined ? null : installedYtDlp(options.systemDir);
  const program = configured ?? (installed !== null && existsSync(installed) ? installed : 'yt-dlp');
  const deno = path.isAbsolute(program) ? path.join(path.dirname(program), 'deno') : null;
  return {
    path: program,
    cookiesFile: options.cookiesFile ?? null,
    jsRuntimes: [...(deno !== null && existsSync(deno) ? [`deno:${deno}`] : []), `node:${process.execPath}`],
    channel: options.channel ?? 'stable',
  };
}

/**
 * Runs `run` with yt-dlp's full argument list: `--ignore-config` (a yt-dlp config file on the
 * machine must not change Kura's runs), `--js-runtimes` for each runtime (since yt-dlp 2025.11.12
 * YouTube needs an external JavaScript runtime, and only Deno is on by default), then, when
 * `cookies` is asked for and a cookies file is set, `--cookies` with a private copy of it, then
 * `args`. yt-dlp writes the cookies back when it exits, so each run gets its own copy (mode 0600,
 * removed after): runs at once never write over each other, and the operator's file is never changed.
 */
export async function withYtDlpArguments<T>(
  program: YtDlpProgram,
  args: readonly string[],
  run: (argv: string[]) => Promise<T>,
  options: { cookies?: boolean } = {},
): Promise<T> {
  const base = ['--ignore-config', ...program.jsRuntimes.flatMap((runtime) => ['--js-runtimes', runtime])];
  if (program.cookiesFile === null || options.cookies !== true) return run([...base, ...args]);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'kura-cookies-'));
  try {
    const copy = path.join(dir, `${randomBytes(6).toString('hex')}.txt`);
    await copyFile(program.cookiesFile, copy).catch((error: NodeJS.ErrnoException) => {
      throw new Error(`the cookies file (KURA_YTDLP_COOKIES) cannot be read: ${error.code ?? error.message}`);
    });
    await chmod(copy, 0o600);
    return await run([...base, '--cookies', copy, ...args]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
