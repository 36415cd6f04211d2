// Decisions: docs/decisions/0020-youtube-through-yt-dlp.md, docs/decisions/0089-how-kura-runs-yt-dlp.md
import { spawn } from 'node:child_process';
import { fragmentListsDropped } from './fragment-lists.js';
import { withYtDlpArguments, type YtDlpProgram } from './ytdlp-program.js';
import { isRefusal, troubleInWords, troubleOf, YtDlpFailure, type YtDlpTrouble } from './ytdlp-trouble.js';
import { readWarnings, warningKindOf } from './ytdlp-warnings.js';

/** How long one yt-dlp run may take, and how much JSON it may print. */
export const YTDLP_TIMEOUT_MS = 60_000;
const MAX_YTDLP_OUTPUT = 16 * 1024 * 1024;

/** What one yt-dlp run answered. */
export interface YtDlpAnswer {
  json: unknown;
  /** Meaningful warnings, in yt-dlp's words (prefix stripped); `warningsInShort` says them in a few words. */
  warnings: string[];
  /** Whether this answer came from a run with cookies. */
  withCookies: boolean;
}

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
 * Whether an answer is YouTube refusing a run without cookies although yt-dlp exited 0: with
 * `--ignore-no-formats-error` a members-only or sign-in video comes with `availability` and no
 * formats, and the reason only as a warning; a bot check or sign-in may be a warning only too.
 */
export function refusalOf(answer: Pick<YtDlpAnswer, 'json' | 'warnings'>): YtDlpTrouble | null {
  const info = (answer.json ?? {}) as { availability?: unknown; formats?: unknown };
  const noFormats = !Array.isArray(info.formats) || info.formats.length === 0;
  if (noFormats && info.availability === 'subscriber_only') return 'members_only';
  if (noFormats && info.availability === 'needs_auth') return 'sign_in';
  for (const kind of answer.warnings.map(warningKindOf)) {
    if (kind === 'bot_check' || kind === 'sign_in' || (noFormats && kind === 'members_only')) return kind;
  }
  return null;
}

/**
 * Runs yt-dlp with these arguments (one that prints JSON: `-J`), within YTDLP_TIMEOUT_MS and 16 MB
 * of output, and resolves with the parsed JSON and its meaningful warnings. Cookies only where
 * needed (0089): `cookies` (a members-only stream) runs with them from the first; otherwise a run
 * without them that YouTube refuses (bot check, sign-in, members-only: an error, or `refusalOf` an
 * answer) is run once more with them, when KURA_YTDLP_COOKIES is set. Rejects with a YtDlpFailure.
 */
export async function runYtDlp(program: YtDlpProgram, args: readonly string[], options: { cookies?: boolean } = {}): Promise<YtDlpAnswer> {
  const cookiesSet = program.cookiesFile !== null;
  if (options.cookies === true && cookiesSet) return runOnce(program, args, true);
  try {
    const answer = await runOnce(program, args, false);
    if (!cookiesSet || refusalOf(answer) === null) return answer;
  } catch (error) {
    if (!cookiesSet || !isRefusal(troubleOf(error))) throw error;
  }
  return runOnce(program, args, true);
}

async function runOnce(program: YtDlpProgram, args: readonly string[], cookies: boolean): Promise<YtDlpAnswer> {
  try {
    const { json, warnings } = await withYtDlpArguments(program, args, (argv) => runForJson(program, argv), { cookies });
    return { json, warnings, withCookies: cookies };
  } catch (error) {
    // an unreadable cookies file, and anything else thrown before yt-dlp ran
    throw error instanceof YtDlpFailure ? error : new YtDlpFailure('failed', (error as Error).message);
  }
}

function runForJson(program: YtDlpProgram, argv: string[]): Promise<{ json: unknown; warnings: string[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(program.path, argv, { stdio: ['ignore', 'pipe', 'pipe'], timeout: YTDLP_TIMEOUT_MS });
    let stdout = '';
    let stderr = '';
    let tooLong = false;
    // a post_live video's fragments, listed one by one, would be hundreds of MB: dropped as they come
    const lists = fragmentListsDropped();
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      stdout += lists.push(chunk);
      if (stdout.length > MAX_YTDLP_OUTPUT && !tooLong) {
        tooLong = true;
        child.kill('SIGKILL');
      }
    });
    // a warning stream is short; the bound keeps a chatty yt-dlp from growing it for ever
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-262_144)));
    child.on('error', (error: NodeJS.ErrnoException) =>
      reject(new YtDlpFailure(error.code === 'ENOENT' ? 'missing' : 'failed', ytdlpStartError(program, error))),
    );
    child.on('close', (code, signal) => {
      if (tooLong) return reject(new YtDlpFailure('failed', `yt-dlp printed more than ${MAX_YTDLP_OUTPUT} bytes`));
      // spawn's timeout ends the run with SIGTERM
      if (signal === 'SIGTERM') return reject(new YtDlpFailure('timeout', `yt-dlp did not answer within ${YTDLP_TIMEOUT_MS / 1000} s`));
      if (code !== 0) {
        const words = signal ? `yt-dlp stopped (${signal})` : ytdlpErrorWords(stderr) || `yt-dlp exited with ${code}`;
        // yt-dlp 2026.08 warns of a 429 on each page and client it tries, then fails with
        // "Failed to extract any player response": the warnings say why when the error does not
        const warned = readWarnings(stderr);
        const trouble = troubleInWords(words) === 'failed' ? troubleInWords(warned.join('\n')) : troubleInWords(words);
        const because = trouble !== troubleInWords(words) ? ` (${warned.find((w) => troubleInWords(w) === trouble)})` : '';
        return reject(new YtDlpFailure(trouble, `${words}${because}`));
      }
      try {
        resolve({ json: JSON.parse(stdout + lists.end()), warnings: readWarnings(stderr) });
      } catch {
        reject(new YtDlpFailure('failed', 'yt-dlp printed no JSON'));
      }
    });
  });
}
