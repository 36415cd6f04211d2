// Decisions: docs/decisions/0045-live-chat-through-yt-dlp.md
import { spawn } from 'node:child_process';
import { watch } from 'node:fs';
import { mkdir, open, readdir, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { StringDecoder } from 'node:string_decoder';
import type { ChatMessage } from '../../core/chat/chat.js';
import type { ChatEnd, ChatSource } from '../../core/chat/ports.js';
import { readLiveChatLine } from './youtube-live-chat.js';
import { parseYouTubeUrl } from './youtube-url.js';
import { ytdlpErrorWords, ytdlpStartError } from '../ytdlp/run-ytdlp.js';
import { withYtDlpArguments, type YtDlpProgram } from '../ytdlp/ytdlp-program.js';
import { isRefusal, troubleInWords, troubleOf, YtDlpFailure } from '../ytdlp/ytdlp-trouble.js';

/**
 * A YouTube stream's live chat through yt-dlp's `live_chat` subtitle: yt-dlp fetches the chat
 * as a viewer's page does and appends each fetched batch to `<dir>/chat.live_chat.json` (one
 * action a line, flushed per batch) until the stream ends; Kura reads the file as it grows
 * (inotify), hands each message on, and stops yt-dlp when asked. `dir` holds one folder per
 * chat being followed on this machine. Cookies only where needed (0089): a chat YouTube refuses
 * without them (a members-only stream's) is followed again with them, when KURA_YTDLP_COOKIES is set.
 */
export function createYouTubeChatSource(options: { ytdlp: YtDlpProgram; dir: string }): ChatSource {
  return {
    async follow(sourceUrl, onMessage, signal) {
      const parsed = parseYouTubeUrl(sourceUrl);
      if (parsed.kind !== 'video') return 'none';
      const dir = await freshFolder(options.dir, parsed.videoId);
      const followOnce = (cookies: boolean) =>
        withYtDlpArguments(options.ytdlp, chatArguments(parsed.canonicalUrl, dir), (argv) => followWithYtDlp(options.ytdlp, argv, dir, onMessage, signal), {
          cookies,
        });
      try {
        return await followOnce(false).catch((error: unknown) => {
          if (options.ytdlp.cookiesFile === null || signal.aborted || !isRefusal(troubleOf(error))) throw error;
          return followOnce(true);
        });
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}

/** A new folder for this video's chat; those of earlier runs (a worker that died) are removed. */
async function freshFolder(root: string, videoId: string): Promise<string> {
  await mkdir(root, { recursive: true });
  for (const name of await readdir(root)) if (name.startsWith(`${videoId}.`)) await rm(path.join(root, name), { recursive: true, force: true });
  const dir = path.join(root, `${videoId}.${randomBytes(4).toString('hex')}`);
  await mkdir(dir);
  return dir;
}

/** yt-dlp's arguments to follow a stream's live chat into `dir`. */
function chatArguments(url: string, dir: string): string[] {
  // --no-part: the lines land in the file we read, not in a .part renamed at the end
  return [
    '--skip-download',
    '--write-subs',
    '--sub-langs',
    'live_chat',
    '--no-part',
    '--no-warnings',
    '--no-playlist',
    '-o',
    path.join(dir, 'chat.%(ext)s'),
    '--',
    url,
  ];
}

async function followWithYtDlp(ytdlp: YtDlpProgram, args: string[], dir: string, onMessage: (m: ChatMessage) => void, signal: AbortSignal): Promise<ChatEnd> {
  const program = ytdlp.path;
  const file = path.join(dir, 'chat.live_chat.json');
  const tail = tailLines(file, (line) => {
    for (const message of readLiveChatLine(line)) onMessage(message);
  });
  const bound = await canBindToParent();
  return new Promise((resolve, reject) => {
    const child = bound ? spawn('setpriv', ['--pdeathsig', 'KILL', '--', program, ...args], { stdio: STDIO }) : spawn(program, args, { stdio: STDIO });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-16_384)));
    const watcher = watch(dir, () => void tail.read());
    const stop = () => child.kill('SIGTERM');
    signal.addEventListener('abort', stop, { once: true });
    const notInstalled = `ERROR: ${ytdlpStartError(ytdlp, Object.assign(new Error('not found'), { code: 'ENOENT' }))}`;
    child.on('error', (error: NodeJS.ErrnoException) => {
      stderr += `ERROR: ${ytdlpStartError(ytdlp, error)}`;
    });
    child.on('close', (code) => {
      if (code === 127 && stderr.startsWith('setpriv: failed to execute')) stderr = notInstalled;
      signal.removeEventListener('abort', stop);
      watcher.close();
      void tail.close().then((seen) => {
        if (signal.aborted || code === 0) return resolve(seen || signal.aborted ? 'ended' : 'none');
        const words = ytdlpErrorWords(stderr);
        const trouble = words.startsWith('yt-dlp is not installed') ? 'missing' : troubleInWords(words);
        reject(new YtDlpFailure(trouble, `yt-dlp could not follow the chat: ${words || `it exited with ${code}`}`));
      }, reject);
    });
  });
}

const STDIO: ['ignore', 'ignore', 'pipe'] = ['ignore', 'ignore', 'pipe'];

/**
 * yt-dlp follows a chat until the stream ends, hours perhaps: were this process killed
 * (SIGKILL, OOM), it would run on and fetch a chat nobody reads. Started through util-linux's
 * `setpriv --pdeathsig KILL`, it dies with us (setpriv execs yt-dlp in its place). Whether this
 * machine's setpriv can is asked once, without blocking the event loop.
 */
let bindable: Promise<boolean> | undefined;
const canBindToParent = () =>
  (bindable ??= new Promise((resolve) => {
    const probe = spawn('setpriv', ['--pdeathsig', 'KILL', '--', 'true'], { stdio: 'ignore' });
    probe.on('error', () => resolve(false));
    probe.on('close', (code) => resolve(code === 0));
  }));

/** Reads the lines appended to `file` (which may not exist yet) each time `read` is called; `close` reads the rest and says whether the file ever existed. */
function tailLines(file: string, onLine: (line: string) => void): { read(): Promise<void>; close(): Promise<boolean> } {
  let handle: FileHandle | null = null;
  let position = 0;
  let partial = '';
  // a batch may end inside a character: the decoder keeps its first bytes for the next read
  const decoder = new StringDecoder('utf8');
  let reading: Promise<void> = Promise.resolve();
  const buffer = Buffer.alloc(256 * 1024);
  const readAvailable = async () => {
    handle ??= await open(file, 'r').catch(() => null);
    if (handle === null) return;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
      if (bytesRead === 0) return;
      position += bytesRead;
      const lines = (partial + decoder.write(buffer.subarray(0, bytesRead))).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) if (line.trim() !== '') onLine(line);
    }
  };
  const read = () => (reading = reading.then(readAvailable));
  return {
    read,
    async close() {
      await read();
      if (partial.trim() !== '') onLine(partial);
      const existed = handle !== null;
      await handle?.close();
      return existed;
    },
  };
}
