import { createWriteStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ByteSource, LocalFileWriter, ObjectWriter } from '../../core/archive/ports.js';
import type { MediaTools } from '../../core/capture/ports.js';
import { ffmpegArgs } from './ffmpeg-args.js';
import { fileDuration } from './mp4-duration.js';
import { grouped, partInputs, type PartInputs } from './part-inputs.js';
import { ExitError, start } from './program.js';
import { runRemux, type Remuxed } from './remux-run.js';
import { remuxStreamed } from './streamed-remux.js';

export interface FfmpegSettings {
  ffmpeg: string;
  ffprobe: string;
  /** Most of ffmpeg's output kept on local disk before its input is held back (a streamed remux). */
  backlogBytes: number;
  log?: (line: string) => void;
}

/** The audio and video streams with a known codec in ffprobe's JSON report. */
export function countMediaStreams(report: string): number {
  const { streams = [] } = JSON.parse(report) as { streams?: Array<{ codec_type?: string; codec_name?: string }> };
  return streams.filter((s) => (s.codec_type === 'video' || s.codec_type === 'audio') && typeof s.codec_name === 'string').length;
}

/** ffmpeg and ffprobe from the system (FFMPEG_PATH, FFPROBE_PATH). */
export function createFfmpegTools(settings: FfmpegSettings): MediaTools {
  const log = settings.log ?? (() => undefined);
  /** Runs `work` on ffmpeg's names for `parts`; its failure says so when a part could not be read. */
  const withInputs = async <T>(parts: readonly ByteSource[], work: (inputs: PartInputs) => Promise<T>): Promise<T> => {
    const inputs = await partInputs(parts);
    try {
      return await work(inputs);
    } catch (error) {
      if (inputs.server?.failure) throw new Error(`a capture part could not be read: ${inputs.server.failure.message}`, { cause: error });
      throw error;
    } finally {
      await inputs.close();
    }
  };
  /** Remuxes `groups` (each parts played one after another; several are muxed side by side) into `output`. */
  const remuxInputs = async (groups: ReadonlyArray<readonly ByteSource[]>, output: ObjectWriter, workFile: string) => {
    if (output.kind === 'head-last') return remuxStreamed({ ffmpeg: settings.ffmpeg, backlogBytes: settings.backlogBytes, log }, groups, output, workFile);
    return withInputs(groups.flat(), (inputs) =>
      remuxToFile(settings.ffmpeg, { ...inputs, urls: grouped(inputs.urls, groups) }, output, `${workFile}.concat.txt`),
    );
  };
  return {
    async remux(parts, output, workFile) {
      return remuxInputs([parts], output, workFile);
    },
    async mux(tracks, output, workFile) {
      return remuxInputs([[tracks.video], [tracks.audio]], output, workFile);
    },
    async streams(part) {
      return withInputs([part], async ({ urls, protocols, cwd, server }) => {
        const probe = start(settings.ffprobe, ffmpegArgs.streams(urls[0] as string, protocols), { cwd });
        const { stdout } = await probe.done.catch((error: Error) => {
          // ffprobe read the bytes and found no media in them
          if (error instanceof ExitError && !server?.failure) return { stdout: '{}' };
          throw error;
        });
        return countMediaStreams(stdout);
      });
    },
    async thumbnail(video, output, atSeconds) {
      // ffmpeg seeks many times to find a frame, each a new read of the store through the part server
      const copy = video.files === undefined ? `${output}.source` : null;
      const source = copy === null ? video : await copyToFile(video, copy);
      // a new file, never an earlier try's rewritten: the fs store may have linked that into the archive
      await rm(output, { force: true });
      try {
        await withInputs([source], async ({ urls, protocols, cwd }) => {
          await start(settings.ffmpeg, ffmpegArgs.thumbnail(urls[0] as string, output, atSeconds, protocols), { cwd }).done;
        });
      } finally {
        if (copy !== null) await rm(copy, { force: true });
      }
      // ffmpeg exits 0 having written nothing when the time is past the last frame it decodes
      if ((await stat(output).catch(() => null)) === null) throw new Error(`ffmpeg found no frame at ${atSeconds.toFixed(3)} s`);
    },
  };
}

/** `source` copied into the local file `file`, as a source read from it. */
async function copyToFile(source: ByteSource, file: string): Promise<ByteSource> {
  await mkdir(path.dirname(file), { recursive: true });
  const bytes = source.bytes === 0 ? [] : source.read({ start: 0, end: source.bytes - 1 });
  await pipeline(Readable.from(bytes), createWriteStream(file));
  return { bytes: source.bytes, read: source.read, files: [file] };
}

/**
 * ffmpeg writes the faststart MP4 straight into the store's file (`+faststart`: the same command,
 * and so the same bytes, as a bare remux of the joined parts), which is then completed.
 */
function remuxToFile(ffmpegPath: string, inputs: Omit<PartInputs, 'urls'> & { urls: string[][] }, output: LocalFileWriter, listFile: string): Promise<Remuxed> {
  const run = {
    ffmpeg: ffmpegPath,
    inputs: inputs.urls,
    listFile,
    output: output.path,
    protocols: inputs.protocols,
    faststart: true,
    cwd: inputs.cwd,
    server: inputs.server,
  };
  return runRemux(run, {
    measure: async () => ({ durationSeconds: await fileDuration(output.path), complete: () => output.complete() }),
    abort: () => output.abort(),
  });
}
