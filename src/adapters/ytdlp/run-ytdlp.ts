// Decisions: docs/decisions/0020-youtube-through-yt-dlp.md
import { spawn } from 'node:child_process';
import { withYtDlpArguments, type YtDlpProgram } from './ytdlp-program.js';

/** How long one yt-dlp run may take, and how much JSON it may print. */
export const YTDLP_TIMEOUT_MS = 60_000;
const MAX_YTDLP_OUTPUT = 16 * 1024 * 1024;

/** yt-dlp's error line in words: its ERROR line without the `[extractor] id:` prefix, else its last line. */
export function ytdlpErrorWords(stderr: string): string {
  const line = stderr.split('\n').find((l) => l.startsWith('ERROR:')) ?? stderr.trim().split('\n').at(-1) ?? '';
  return line.replace(/^ERROR:\s*(\[[\w:]+\]\s*[\w@.-]+:\s*)?/, '');
}

/** Why yt-dlp could not be started at all. */
export function ytdlpStartError(program: YtDlpProgram, error: NodeJS.ErrnoException): string {
  return error.code === 'ENOENT'
    ? `yt-dlp is not installed here (looked for ${program.path}): the operator installs it with scripts/install-system-deps.sh, or sets YTDLP_PATH to a current yt-dlp`
    : `yt-dlp could not be run (${program.path}): ${error.message}`;
}

/**
 * Runs yt-dlp with these arguments (one that prints JSON: `-J`), within YTDLP_TIMEOUT_MS and
 * 16 MB of output; resolves with the parsed JSON, rejects with yt-dlp's error line in words.
 */
export function runYtDlp(program: YtDlpProgram, args: readonly string[]): Promise<unknown> {
  return withYtDlpArguments(program, args, (argv) => runForJson(program, argv));
}

function runForJson(program: YtDlpProgram, argv: string[]): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const child = spawn(program.path, argv, { stdio: ['ignore', 'pipe', 'pipe'], timeout: YTDLP_TIMEOUT_MS });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.length > MAX_YTDLP_OUTPUT) child.kill('SIGKILL');
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', (error: NodeJS.ErrnoException) => reject(new Error(ytdlpStartError(program, error))));
    child.on('close', (code, signal) => {
      if (code !== 0) return reject(new Error(signal ? `yt-dlp stopped (${signal})` : ytdlpErrorWords(stderr) || `yt-dlp exited with ${code}`));
      try {
        resolve(JSON.parse(stdout));
      } catch {
        reject(new Error('yt-dlp printed no JSON'));
      }
    });
  });
}
