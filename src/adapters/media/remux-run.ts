import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { StoredObject } from '../../core/archive/ports.js';
import { PermanentError } from '../../core/errors.js';
import { ffmpegArgs, type FrameOutput } from './ffmpeg-args.js';
import { concatList } from './part-inputs.js';
import type { PartServer } from './part-server.js';
import { start, type Run } from './program.js';

/** What a remux made: ffmpeg's log, the duration of its output, and the archive as stored. */
export interface Remuxed {
  log: string[];
  durationSeconds: number;
  stored: StoredObject;
}

/** One remux ffmpeg run: its inputs, each the parts as ffmpeg names them (a concat list beside `listFile`), and where it writes. */
export interface RemuxRun {
  ffmpeg: string;
  /** One list of URLs per input: the parts played one after another (an HLS capture has one input; a video and an audio track make two). */
  inputs: ReadonlyArray<readonly string[]>;
  listFile: string;
  output: string;
  protocols: string;
  faststart: boolean;
  /** A thumbnail written in the same run (its input named by `protocols` too). */
  frame?: FrameOutput;
  /** A mux: the inputs after the first are audio tracks in these languages (see ffmpegArgs.remux). */
  audioLanguages?: ReadonlyArray<string | null>;
  /** ffmpeg's working directory (local files are named relative to it). */
  cwd?: string;
  /** The loopback server the parts are read from, if they are: a part it could not read whole voids the output. */
  server: PartServer | null;
}

export interface RemuxSteps {
  /** Runs while ffmpeg does, until `exited` settles (a streamed remux hands the output on). */
  during?: (exited: Promise<unknown>) => Promise<void>;
  /** After ffmpeg exited: the output's duration, and how to make it the stored archive. */
  measure: () => Promise<{ durationSeconds: number; complete: () => Promise<StoredObject> }>;
  /** Gives the store's object up (nothing left behind). */
  abort: () => Promise<void>;
}

/**
 * Runs the remux ffmpeg and stores what it made. PermanentError (storing nothing) when the output
 * has no duration: no playable media. On any failure ffmpeg is killed and the object aborted.
 */
export async function runRemux(run: RemuxRun, steps: RemuxSteps): Promise<Remuxed> {
  let ffmpeg: Run | null = null;
  try {
    // a capture finalized by another worker than the one that recorded it has no folder here yet
    await mkdir(path.dirname(run.listFile), { recursive: true });
    for (const [i, urls] of run.inputs.entries()) await writeFile(listFileOf(run, i), concatList(urls));
    const listFiles = run.inputs.map((_, i) => listFileOf(run, i));
    ffmpeg = start(run.ffmpeg, ffmpegArgs.remux(listFiles, run.output, run), { cwd: run.cwd });
    await steps.during?.(ffmpeg.done);
    const { stderr } = await ffmpeg.done;
    if (run.server?.failure) throw new Error(`a capture part could not be read whole: ${run.server.failure.message}`);
    const { durationSeconds, complete } = await steps.measure();
    if (!(durationSeconds > 0)) throw new PermanentError('The recording holds no playable audio or video: ffmpeg made a video of no duration from it.');
    return { log: stderr, durationSeconds, stored: await complete() };
  } catch (error) {
    ffmpeg?.kill();
    await ffmpeg?.done.catch(() => undefined);
    await steps.abort().catch(() => undefined);
    throw error;
  } finally {
    for (const i of run.inputs.keys()) await rm(listFileOf(run, i), { force: true });
  }
}

const listFileOf = (run: RemuxRun, input: number) => (input === 0 ? run.listFile : `${run.listFile}.${input}`);
