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

/**
 * Which streams of the inputs go into the output: every one of each input; for a mux, the video
 * track's video, then each audio track's audio (output audio streams 0, 1, … in the tracks'
 * order, each with its language), then any audio the video track carries itself.
 */
function streamMaps(inputs: number, audioLanguages: ReadonlyArray<string | null> | undefined): string[] {
  if (audioLanguages === undefined) return Array.from({ length: inputs }, (_, input) => ['-map', String(input)]).flat();
  return [
    ...['-map', '0:v'],
    ...audioLanguages.flatMap((_, i) => ['-map', `${i + 1}:a`]),
    ...['-map', '0:a?'],
    ...audioLanguages.flatMap((language, i) => (language === null ? [] : [`-metadata:s:a:${i}`, `language=${language}`])),
  ];
}

/** Pure argument builders: remux only (`-c copy`), never re-encode. `protocols` are those ffmpeg may open. */
export const ffmpegArgs = {
  // each input a concat list (parts played one after another); several inputs are muxed side by side (a video and an audio track)
  // with `audioLanguages` (a mux), input 0 is a video track and the others audio tracks, tagged with their languages (null: none)
  remux: (
    listFiles: readonly string[],
    output: string,
    options: { protocols: string; faststart: boolean; frame?: FrameOutput; audioLanguages?: ReadonlyArray<string | null> },
  ) => [
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
    ...streamMaps(listFiles.length, options.audioLanguages),
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
