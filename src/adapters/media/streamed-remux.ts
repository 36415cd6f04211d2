// Decisions: docs/decisions/0039-finalize-writes-once.md
import { rm } from 'node:fs/promises';
import type { ByteSource, HeadLastWriter } from '../../core/archive/ports.js';
import { headDuration } from './mp4-duration.js';
import { Mp4OutputFollower } from './mp4-output-follower.js';
import { grouped } from './part-inputs.js';
import { serveParts } from './part-server.js';
import { runRemux, type Remuxed } from './remux-run.js';

export interface StreamedRemuxSettings {
  ffmpeg: string;
  /** Most of ffmpeg's output kept on local disk before its input is held back. */
  backlogBytes: number;
  log: (line: string) => void;
}

/**
 * The inputs (each parts played one after another) remuxed into an MP4 that is handed to `output` as ffmpeg writes it (without
 * `+faststart`, into `workFile`, whose blocks are freed behind what was handed on), ffmpeg's input
 * read through the loopback part server so that it can be held back while the output waits; the
 * faststart head goes last. Local disk holds about `backlogBytes` whatever the archive's size.
 */
export async function remuxStreamed(
  settings: StreamedRemuxSettings,
  inputs: ReadonlyArray<readonly ByteSource[]>,
  output: HeadLastWriter,
  workFile: string,
  audioLanguages?: ReadonlyArray<string | null>,
): Promise<Remuxed> {
  // the first input is held back (a capture's parts, or its video); a second (its audio, far smaller) is read as ffmpeg asks
  const firstInput = inputs[0]?.length ?? 0;
  const pacing = { requested: () => follower.restartInput(), beforeWrite: (bytes: number) => follower.waitForRoom(bytes) };
  const server = await serveParts(inputs.flat(), pacing, (index) => index < firstInput);
  // called only once ffmpeg connects, after this line
  const follower = new Mp4OutputFollower(workFile, output, settings.backlogBytes, settings.log, () => server.queued());
  const run = {
    ffmpeg: settings.ffmpeg,
    inputs: grouped(server.urls, inputs),
    listFile: `${workFile}.concat.txt`,
    output: workFile,
    protocols: 'file,http,tcp',
    faststart: false,
    server,
    ...(audioLanguages === undefined ? {} : { audioLanguages }),
  };
  try {
    return await runRemux(run, {
      during: (exited) => follower.follow(exited),
      measure: async () => {
        const head = await follower.finish();
        return { durationSeconds: headDuration(head), complete: () => output.complete(head) };
      },
      abort: () => output.abort(),
    });
  } finally {
    await follower.close();
    await server.close();
    await rm(workFile, { force: true });
  }
}
