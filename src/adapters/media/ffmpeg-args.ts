/** A JPEG the remux's run also writes: a frame of `input` (a part, as ffmpeg names it) at `atSeconds`. */
export interface FrameOutput {
  input: string;
  atSeconds: number;
  output: string;
}

/**
 * How much of the frame's input a remux reads from `atSeconds`: at least one frame of a stream of
 * 5 frames a second or more (a slower one gets no frame there, and its thumbnail a run of its own).
 */
export const FRAME_READ_SECONDS = 0.2;

/** Pure argument builders: remux only (`-c copy`), never re-encode. `protocols` are those ffmpeg may open. */
export const ffmpegArgs = {
  // each input a concat list (parts played one after another); several inputs are muxed side by side (a video and an audio track)
  remux: (listFiles: readonly string[], output: string, options: { protocols: string; faststart: boolean; frame?: FrameOutput }) => [
    '-hide_banner',
    '-nostdin',
    '-y',
    // an input option: each input's list names its parts by these protocols
    ...listFiles.flatMap((listFile) => ['-protocol_whitelist', options.protocols, '-f', 'concat', '-safe', '0', '-i', listFile]),
    // the frame's input: only FRAME_READ_SECONDS of it are read (ffmpeg decodes an input to its end once its one frame is written)
    ...(options.frame === undefined
      ? []
      : [
          '-protocol_whitelist',
          options.protocols,
          '-threads',
          '1',
          '-ss',
          options.frame.atSeconds.toFixed(3),
          '-t',
          String(FRAME_READ_SECONDS),
          '-i',
          options.frame.input,
        ]),
    ...listFiles.flatMap((_, input) => ['-map', String(input)]),
    '-c',
    'copy',
    ...(options.faststart ? ['-movflags', '+faststart'] : []),
    '-f',
    'mp4',
    output,
    // the thumbnail's options, as `thumbnail` below writes it
    ...(options.frame === undefined ? [] : ['-map', `${listFiles.length}:v:0`, '-frames:v', '1', '-q:v', '3', '-f', 'image2', options.frame.output]),
  ],
  // one decoder thread: a single frame gains nothing from frame threads, and starting them costs
  // a third of the run's CPU (same JPEG either way)
  thumbnail: (video: string, output: string, atSeconds: number, protocols: string) => [
    '-hide_banner',
    '-nostdin',
    '-y',
    '-protocol_whitelist',
    protocols,
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
  // the audio and video streams ffprobe recognises in a part (read as ffmpeg's remux would)
  streams: (input: string, protocols: string) => [
    '-v',
    'error',
    '-protocol_whitelist',
    protocols,
    '-show_entries',
    'stream=codec_type,codec_name',
    '-of',
    'json',
    input,
  ],
};
