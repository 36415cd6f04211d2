import { spawn } from 'node:child_process';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PermanentError } from '../../core/errors.js';
import type { MediaTools } from '../../core/capture/ports.js';
import { Mp4OutputFollower } from './mp4-output-follower.js';
import { serveParts } from './part-server.js';

export interface FfmpegSettings {
  ffmpeg: string;
  ffprobe: string;
  /** Most of ffmpeg's output kept on local disk before its input is held back. */
  backlogBytes: number;
  log?: (line: string) => void;
}

/** A program that ran and exited with a non-zero code (not one that could not be started). */
class ExitError extends Error {}

interface Run {
  done: Promise<{ stdout: string; stderr: string[] }>;
  kill(): void;
}

/** Starts a program in its own process group; `done` resolves with its output, rejects on a non-zero exit. */
function start(program: string, args: readonly string[]): Run {
  const child = spawn(program, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<{ stdout: string; stderr: string[] }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      const lines = stderr.split('\n').filter((l) => l.trim() !== '');
      if (code === 0) resolve({ stdout, stderr: lines });
      else reject(new ExitError(`${path.basename(program)} exited with ${code}: ${lines.slice(-5).join(' | ')}`));
    });
  });
  return {
    done,
    kill: () => {
      if (child.exitCode === null && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    },
  };
}

/** Pure argument builders: remux only (`-c copy`), never re-encode. */
export const ffmpegArgs = {
  // no +faststart: the moov is moved in front while streaming the output (Mp4OutputFollower)
  remux: (listFile: string, output: string) => [
    '-hide_banner',
    '-nostdin',
    '-y',
    '-protocol_whitelist',
    'file,http,tcp',
    '-f',
    'concat',
    '-safe',
    '0',
    '-i',
    listFile,
    '-map',
    '0',
    '-c',
    'copy',
    '-f',
    'mp4',
    output,
  ],
  // one decoder thread: a single frame gains nothing from frame threads, and starting them costs
  // a third of the run's CPU (same JPEG either way)
  thumbnail: (video: string, output: string, atSeconds: number) => [
    '-hide_banner',
    '-nostdin',
    '-y',
    '-threads',
    '1',
    '-ss',
    atSeconds.toFixed(3),
    '-i',
    video,
    '-frames:v',
    '1',
    '-q:v',
    '3',
    '-f',
    'image2',
    output,
  ],
  // the container's duration, from the moov alone (the work file's media blocks are freed by then)
  probe: (file: string) => ['-v', 'error', '-probesize', '32', '-analyzeduration', '0', '-show_entries', 'format=duration', '-of', 'json', file],
  // the audio and video streams ffprobe recognises in a part (read as ffmpeg's remux would)
  streams: (input: string) => ['-v', 'error', '-show_entries', 'stream=codec_type,codec_name', '-of', 'json', input],
};

/** The audio and video streams with a known codec in ffprobe's JSON report. */
export function countMediaStreams(report: string): number {
  const { streams = [] } = JSON.parse(report) as { streams?: Array<{ codec_type?: string; codec_name?: string }> };
  return streams.filter((s) => (s.codec_type === 'video' || s.codec_type === 'audio') && typeof s.codec_name === 'string').length;
}

/** ffmpeg and ffprobe from the system (FFMPEG_PATH, FFPROBE_PATH). */
export function createFfmpegTools(settings: FfmpegSettings): MediaTools {
  const log = settings.log ?? (() => undefined);
  const probe = async (file: string) => {
    const { stdout } = await start(settings.ffprobe, ffmpegArgs.probe(file)).done;
    const report = JSON.parse(stdout) as { format?: { duration?: string } };
    return Number(report.format?.duration ?? 0);
  };
  return {
    async remux(parts, output, workFile) {
      const server = await serveParts(parts, { requested: () => follower.restartInput(), beforeWrite: (bytes) => follower.waitForRoom(bytes) });
      // called only once ffmpeg connects, after this line
      const follower = new Mp4OutputFollower(workFile, output, settings.backlogBytes, log, () => server.queued());
      const listFile = `${workFile}.concat.txt`;
      let ffmpeg: Run | null = null;
      try {
        // a capture finalized by another worker than the one that recorded it has no folder here yet
        await mkdir(path.dirname(workFile), { recursive: true });
        await writeFile(listFile, server.urls.map((url) => `file '${url}'\n`).join(''));
        ffmpeg = start(settings.ffmpeg, ffmpegArgs.remux(listFile, workFile));
        await follower.follow(ffmpeg.done);
        const { stderr } = await ffmpeg.done;
        if (server.failure !== null) throw new Error(`a capture part could not be read whole: ${server.failure.message}`);
        const head = await follower.finish();
        const durationSeconds = await probe(workFile);
        if (!(durationSeconds > 0)) throw new PermanentError('The recording holds no playable audio or video: ffmpeg made a video of no duration from it.');
        const stored = await output.complete(head);
        return { log: stderr, durationSeconds, stored };
      } catch (error) {
        ffmpeg?.kill();
        await ffmpeg?.done.catch(() => undefined);
        await output.abort().catch(() => undefined);
        throw error;
      } finally {
        await follower.close();
        await server.close();
        await rm(listFile, { force: true });
        await rm(workFile, { force: true });
      }
    },
    async streams(part) {
      const server = await serveParts([part]);
      try {
        const { stdout } = await start(settings.ffprobe, ffmpegArgs.streams(server.urls[0] as string)).done;
        return countMediaStreams(stdout);
      } catch (error) {
        if (server.failure !== null) throw new Error(`a capture part could not be read: ${server.failure.message}`, { cause: error });
        if (error instanceof ExitError) return 0; // ffprobe read the bytes and found no media in them
        throw error;
      } finally {
        await server.close();
      }
    },
    async thumbnail(video, output, atSeconds) {
      const server = await serveParts([video]);
      try {
        await start(settings.ffmpeg, ffmpegArgs.thumbnail(server.urls[0] as string, output, atSeconds)).done;
        // ffmpeg exits 0 having written nothing when the time is past the last frame it decodes
        if ((await stat(output).catch(() => null)) === null) throw new Error(`ffmpeg found no frame at ${atSeconds.toFixed(3)} s`);
      } finally {
        await server.close();
      }
    },
  };
}
