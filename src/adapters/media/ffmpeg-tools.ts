import { createWriteStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ByteSource, LocalFileWriter, ObjectWriter } from '../../core/archive/ports.js';
import type { MediaTools, RemuxedArchive, RemuxFrame } from '../../core/capture/ports.js';
import { ffmpegArgs, type FrameOutput } from './ffmpeg-args.js';
import { fileDuration } from './mp4-duration.js';
import { mp4Language } from './mp4-language.js';
import { grouped, partInputs, type PartInputs } from './part-inputs.js';
import { ExitError, start } from './program.js';
import { runRemux } from './remux-run.js';
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
  /**
   * Remuxes `groups` (each parts played one after another; several are muxed side by side) into
   * `output`, with `frame` of the first part when the parts and the output are local files.
   */
  const remuxInputs = async (
    groups: ReadonlyArray<readonly ByteSource[]>,
    output: ObjectWriter,
    workFile: string,
    options: { frame?: RemuxFrame; audioLanguages?: ReadonlyArray<string | null> } = {},
  ): Promise<RemuxedArchive> => {
    const { frame, audioLanguages } = options;
    if (output.kind === 'head-last') {
      const remuxed = await remuxStreamed({ ffmpeg: settings.ffmpeg, backlogBytes: settings.backlogBytes, log }, groups, output, workFile, audioLanguages);
      return { ...remuxed, frameWritten: false };
    }
    return withInputs(groups.flat(), (inputs) => {
      const urls = grouped(inputs.urls, groups);
      const framed = frame === undefined || inputs.server !== null ? undefined : { input: urls[0]?.[0] as string, ...frame };
      return remuxToFile(settings.ffmpeg, { ...inputs, urls, audioLanguages }, output, `${workFile}.concat.txt`, framed);
    });
  };
  return {
    async remux(parts, output, workFile, frame) {
      return remuxInputs([parts], output, workFile, frame === undefined ? {} : { frame });
    },
    async mux(tracks, output, workFile) {
      const audioLanguages = tracks.audio.map((track) => mp4Language(track.language));
      return remuxInputs([[tracks.video], ...tracks.audio.map((track) => [track.source])], output, workFile, { audioLanguages });
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
 * and so the same bytes, as a bare remux of the joined parts), which is then completed. With
 * `frame`, the same run writes the thumbnail too (one ffmpeg start fewer than a run of its own: its
 * loading alone costs about 0.06 CPU s); when that run fails (a stream without video gives the
 * thumbnail nothing to write), the remux runs again without it.
 */
async function remuxToFile(
  ffmpegPath: string,
  inputs: Omit<PartInputs, 'urls'> & { urls: string[][]; audioLanguages?: ReadonlyArray<string | null> | undefined },
  output: LocalFileWriter,
  listFile: string,
  frame?: FrameOutput,
): Promise<RemuxedArchive> {
  const run = {
    ffmpeg: ffmpegPath,
    inputs: inputs.urls,
    listFile,
    output: output.path,
    protocols: inputs.protocols,
    faststart: true,
    cwd: inputs.cwd,
    server: inputs.server,
    ...(inputs.audioLanguages === undefined ? {} : { audioLanguages: inputs.audioLanguages }),
  };
  const measure = async () => ({ durationSeconds: await fileDuration(output.path), complete: () => output.complete() });
  if (frame !== undefined) {
    // a new file, never an earlier try's rewritten: the fs store may have linked that into the archive
    await rm(frame.output, { force: true });
    try {
      const remuxed = await runRemux({ ...run, frame }, { measure, abort: async () => undefined });
      // ffmpeg exits 0 having written no frame when it decoded none in the part it read
      return { ...remuxed, frameWritten: (await stat(frame.output).catch(() => null)) !== null };
    } catch (error) {
      if (!(error instanceof ExitError)) {
        await output.abort();
        throw error;
      }
      await rm(frame.output, { force: true });
    }
  }
  return { ...(await runRemux(run, { measure, abort: () => output.abort() })), frameWritten: false };
}
