// Decisions: docs/decisions/0128-clips.md
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import type { ByteSource } from '../../core/archive/ports.js';
import { AppError } from '../../core/errors.js';
import type { ClipRange } from '../../core/playback/clip-times.js';
import type { Chapter, ClipCutter, CutClip } from '../../core/playback/ports.js';
import { withCachedHead } from './mp4-head-cache.js';
import { concatList, grouped, partInputs, type PartInputs } from './part-inputs.js';
import { ExitError, start } from './program.js';
import { unreadBound } from './unread-bound.js';

/** The largest MP4 index kept in memory for a clip (a six-hour archive's at 30 frames a second is about 22 MB: bench/RESULTS.md "Clips"). */
const MAX_CACHED_HEAD_BYTES = 64 * 1024 * 1024;
/** What ffmpeg may have been sent and not read, on each of its connections to the part server (see unreadBound). */
const MAX_UNREAD_BYTES = 512 * 1024;

/** ffmpeg's output options of every clip: stream copy into a fragmented MP4, written front to back so it streams as it is made. */
const CLIP_OUTPUT = ['-c', 'copy', '-avoid_negative_ts', 'make_zero', '-f', 'mp4', '-movflags', 'frag_keyframe+empty_moov+default_base_moof', 'pipe:1'];

/**
 * Clips cut by ffmpeg with stream copy, read as files (local ones, or through the loopback part
 * server in ranges). Of an archive, ffprobe first finds where a seek to the start lands (the
 * keyframe at or before it, as ffmpeg's own `-ss` seeks); of a capture under way, whole segments
 * are joined as finalize joins them. ffmpeg's stdout is the clip, handed on as it comes.
 */
export function createClipCutter(settings: { ffmpeg: string; ffprobe: string }): ClipCutter {
  return {
    async cut(video, range) {
      const inputs = await mp4Input(video);
      try {
        const startSeconds = (await seekLanding(settings.ffprobe, inputs, range.startSeconds)) ?? range.startSeconds;
        return { startSeconds, durationSeconds: range.endSeconds - startSeconds, ...cutRange(settings.ffmpeg, inputs, range) };
      } catch (error) {
        await inputs.close();
        if (error instanceof ExitError && !inputs.server?.failure) {
          // the bytes were read, and ffprobe found no video in them
          throw new AppError('conflict', 'archive_unreadable', `The stored archive cannot be read as a video, so it cannot be cut: ${error.message}`);
        }
        throw readFailure(inputs, error);
      }
    },

    async join(groups, keepSeconds, { mpegts }) {
      const inputs = await partInputs(groups.flat(), unreadBound(MAX_UNREAD_BYTES));
      const dir = await mkdtemp(path.join(os.tmpdir(), 'kura-clip-'));
      const lists = grouped(inputs.urls, groups).map((urls, i) => ({ file: path.join(dir, `input-${i}.txt`), text: concatList(urls) }));
      for (const list of lists) await writeFile(list.file, list.text);
      const args = ['-hide_banner', '-nostdin', '-loglevel', 'error'];
      for (const list of lists) args.push('-protocol_whitelist', inputs.protocols, '-f', 'concat', '-safe', '0', '-i', list.file);
      args.push(...lists.flatMap((_, i) => ['-map', String(i)]), '-t', keepSeconds.toFixed(3));
      // a fragmented MP4's header is written before the first packet: MPEG-TS's AAC must lose its
      // ADTS headers by an explicit filter (the muxer's own comes too late for that header)
      if (mpegts) args.push('-bsf:a', 'aac_adtstoasc');
      args.push(...CLIP_OUTPUT);
      return run(settings.ffmpeg, args, inputs, () => rm(dir, { recursive: true, force: true }));
    },

    async chaptered(video, chapters) {
      const inputs = await mp4Input(video);
      const dir = await mkdtemp(path.join(os.tmpdir(), 'kura-chapters-'));
      const metadata = path.join(dir, 'chapters.txt');
      await writeFile(metadata, ffmetadata(chapters));
      const args = ['-hide_banner', '-nostdin', '-loglevel', 'error', '-protocol_whitelist', inputs.protocols, '-i', inputs.urls[0] as string];
      // the chapters' file is read as a local file, whatever the archive's input allows
      args.push('-i', metadata, '-map', '0', '-map_metadata', '0', '-map_chapters', '1', ...CLIP_OUTPUT);
      return run(settings.ffmpeg, args, inputs, () => rm(dir, { recursive: true, force: true }));
    },
  };
}

/** An MP4 as ffmpeg reads it: its local file, or the store through the part server, its index read once for every program. */
async function mp4Input(video: ByteSource): Promise<PartInputs> {
  const source = video.files === undefined ? await withCachedHead(video, MAX_CACHED_HEAD_BYTES) : video;
  return partInputs([source], unreadBound(MAX_UNREAD_BYTES));
}

/** `chapters` as ffmpeg's metadata file (FFMETADATA1), each title's `=`, `;`, `#`, `\\` escaped. */
function ffmetadata(chapters: readonly Chapter[]): string {
  const escape = (text: string) => text.replace(/[=;#\\\n]/g, (c) => `\\${c}`);
  const blocks = chapters.map(
    (c) => `[CHAPTER]\nTIMEBASE=1/1000\nSTART=${Math.round(c.startSeconds * 1000)}\nEND=${Math.round(c.endSeconds * 1000)}\ntitle=${escape(c.title)}\n`,
  );
  return `;FFMETADATA1\n${blocks.join('')}`;
}

/** Where a seek to `seconds` lands: the first video packet's time after it (or the first audio packet's, without video); null when neither comes. */
async function seekLanding(ffprobe: string, inputs: PartInputs, seconds: number): Promise<number | null> {
  for (const stream of ['v:0', 'a:0']) {
    const args = ['-v', 'error', '-protocol_whitelist', inputs.protocols, '-select_streams', stream];
    args.push('-read_intervals', `${seconds.toFixed(3)}%+#1`, '-show_entries', 'packet=pts_time', '-of', 'csv=p=0', inputs.urls[0] as string);
    const { stdout } = await start(ffprobe, args, { cwd: inputs.cwd }).done;
    const time = Number.parseFloat(stdout.trim().split('\n')[0] ?? '');
    if (Number.isFinite(time)) return Math.min(time, seconds);
  }
  return null;
}

/** ffmpeg cutting `range` of the one input: an input -ss seeks back to the keyframe ffprobe found, and -to (an input option) stops reading at the end. */
function cutRange(ffmpeg: string, inputs: PartInputs, range: ClipRange): Pick<CutClip, 'body' | 'cancel'> {
  const args = ['-hide_banner', '-nostdin', '-loglevel', 'error', '-protocol_whitelist', inputs.protocols];
  args.push('-ss', range.startSeconds.toFixed(3), '-to', range.endSeconds.toFixed(3), '-i', inputs.urls[0] as string);
  args.push('-map', '0:v?', '-map', '0:a?', ...CLIP_OUTPUT);
  return run(ffmpeg, args, inputs);
}

/** Starts ffmpeg; the clip's body is its stdout, which errors should ffmpeg fail. The inputs are closed (and `cleanUp` run) once it exits. */
function run(ffmpeg: string, args: string[], inputs: PartInputs, cleanUp: () => Promise<void> = async () => undefined): Pick<CutClip, 'body' | 'cancel'> {
  const child = spawn(ffmpeg, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true, cwd: inputs.cwd });
  const body = new PassThrough();
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  child.stdout.pipe(body, { end: false });
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  };
  child.on('error', (error) => body.destroy(error));
  child.on('close', (code) => {
    void inputs.close().then(cleanUp);
    if (code === 0 && inputs.server?.failure == null) body.end();
    else if (!body.destroyed)
      body.destroy(readFailure(inputs, new ExitError(`ffmpeg exited with ${code}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`)));
  });
  body.on('close', kill);
  return { body, cancel: () => body.destroy() };
}

/** `error`, said to be the store's when the part server could not read the video. */
function readFailure(inputs: PartInputs, error: unknown): Error {
  const failure = inputs.server?.failure;
  if (failure) return new Error(`the recording could not be read: ${failure.message}`, { cause: error });
  return error instanceof Error ? error : new Error(String(error));
}
