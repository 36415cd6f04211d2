import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ByteSource, HeadLastWriter, StoredObject } from '../../core/archive/ports.js';
import { PermanentError } from '../../core/errors.js';
import { ffmpegArgs } from './ffmpeg-args.js';
import { headDuration } from './mp4-duration.js';
import { Mp4OutputFollower } from './mp4-output-follower.js';
import { concatList } from './part-inputs.js';
import { serveParts } from './part-server.js';
import { start, type Run } from './program.js';

export interface StreamedRemuxSettings {
  ffmpeg: string;
  /** Most of ffmpeg's output kept on local disk before its input is held back. */
  backlogBytes: number;
  log: (line: string) => void;
}

/**
 * The parts remuxed into an MP4 that is handed to `output` as ffmpeg writes it (without
 * `+faststart`, into `workFile`, whose blocks are freed behind what was handed on), ffmpeg's input
 * read through the loopback part server so that it can be held back while the output waits; the
 * faststart head goes last. Local disk holds about `backlogBytes` whatever the archive's size.
 */
export async function remuxStreamed(
  settings: StreamedRemuxSettings,
  parts: readonly ByteSource[],
  output: HeadLastWriter,
  workFile: string,
): Promise<{ log: string[]; durationSeconds: number; stored: StoredObject }> {
  const server = await serveParts(parts, { requested: () => follower.restartInput(), beforeWrite: (bytes) => follower.waitForRoom(bytes) });
  // called only once ffmpeg connects, after this line
  const follower = new Mp4OutputFollower(workFile, output, settings.backlogBytes, settings.log, () => server.queued());
  const listFile = `${workFile}.concat.txt`;
  let ffmpeg: Run | null = null;
  try {
    // a capture finalized by another worker than the one that recorded it has no folder here yet
    await mkdir(path.dirname(workFile), { recursive: true });
    await writeFile(listFile, concatList(server.urls));
    ffmpeg = start(settings.ffmpeg, ffmpegArgs.remux(listFile, workFile, { protocols: 'file,http,tcp', faststart: false }));
    await follower.follow(ffmpeg.done);
    const { stderr } = await ffmpeg.done;
    if (server.failure !== null) throw new Error(`a capture part could not be read whole: ${server.failure.message}`);
    const head = await follower.finish();
    const durationSeconds = headDuration(head);
    if (!(durationSeconds > 0)) throw new PermanentError('The recording holds no playable audio or video: ffmpeg made a video of no duration from it.');
    return { log: stderr, durationSeconds, stored: await output.complete(head) };
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
}
