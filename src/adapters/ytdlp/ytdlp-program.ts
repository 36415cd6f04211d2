// Decisions: docs/decisions/0020-youtube-through-yt-dlp.md
import { randomBytes } from 'node:crypto';
import { chmod, copyFile, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** The yt-dlp Kura runs, and what every run of it is handed. */
export interface YtDlpProgram {
  /** YTDLP_PATH. */
  path: string;
  /** KURA_YTDLP_COOKIES: a Netscape cookies.txt (a member's, for members-only streams); null: none. */
  cookiesFile: string | null;
  /** The JavaScript runtime yt-dlp solves YouTube's challenges with: the node running Kura. */
  nodePath: string;
}

/** The yt-dlp at `path`, with the cookies file if any, solving challenges with this process's node. */
export function ytdlpProgram(pathOfProgram: string, cookiesFile: string | null = null): YtDlpProgram {
  return { path: pathOfProgram, cookiesFile, nodePath: process.execPath };
}

/**
 * Runs `run` with yt-dlp's full argument list: `--js-runtimes node:<this node>` (since yt-dlp
 * 2025.11.12 YouTube needs an external JavaScript runtime, and only Deno is on by default), then
 * `--cookies` with a private copy of the cookies file when one is set, then `args`. yt-dlp writes
 * the cookies back when it exits, so each run gets its own copy (mode 0600, removed after): runs
 * at once never write over each other, and the operator's file is never changed.
 */
export async function withYtDlpArguments<T>(program: YtDlpProgram, args: readonly string[], run: (argv: string[]) => Promise<T>): Promise<T> {
  const base = ['--js-runtimes', `node:${program.nodePath}`];
  if (program.cookiesFile === null) return run([...base, ...args]);
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
