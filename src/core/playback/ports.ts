import type { ByteSource } from '../archive/ports.js';
import type { ClipRange } from './clip-times.js';

/** A clip being cut: where it truly begins and how long it is, and its bytes as they are made. */
export interface CutClip {
  /** Where the clip begins in the recording: the keyframe at or before the start asked for. */
  startSeconds: number;
  /** From `startSeconds` to the end asked for. */
  durationSeconds: number;
  /** A fragmented MP4, written as it is cut; it errors when the cut fails part-way. */
  body: NodeJS.ReadableStream;
  /** Stops the cut (the client went away); the body ends. */
  cancel(): void;
}

/** Cuts part of a recording without re-encoding (ffmpeg, stream copy). */
export interface ClipCutter {
  /** `range` of the MP4 `video`, read only where the cut needs it (its index and the media of the range). */
  cut(video: ByteSource, range: ClipRange): Promise<CutClip>;
  /**
   * The first `keepSeconds` of `inputs` joined: each input's sources played one after another
   * (whole segments of a capture), several inputs side by side (a video and an audio track).
   * `mpegts`: the sources are MPEG-TS (an HLS capture's segments, whose AAC carries ADTS headers).
   */
  join(inputs: ReadonlyArray<readonly ByteSource[]>, keepSeconds: number, options: { mpegts: boolean }): Promise<Pick<CutClip, 'body' | 'cancel'>>;
  /** The whole MP4 `video` with `chapters` in it (MP4 chapters, as players list them), copied as it is read. */
  chaptered(video: ByteSource, chapters: readonly Chapter[]): Promise<Pick<CutClip, 'body' | 'cancel'>>;
}

/** A chapter of a video: from `startSeconds` to the next one's start (or the end), named `title`. */
export interface Chapter {
  startSeconds: number;
  endSeconds: number;
  title: string;
}
