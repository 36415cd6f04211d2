/** Pure argument builders: remux only (`-c copy`), never re-encode. `protocols` are those ffmpeg may open. */
export const ffmpegArgs = {
  // each input a concat list (parts played one after another); several inputs are muxed side by side (a video and an audio track)
  remux: (listFiles: readonly string[], output: string, options: { protocols: string; faststart: boolean }) => [
    '-hide_banner',
    '-nostdin',
    '-y',
    // an input option: each input's list names its parts by these protocols
    ...listFiles.flatMap((listFile) => ['-protocol_whitelist', options.protocols, '-f', 'concat', '-safe', '0', '-i', listFile]),
    ...listFiles.flatMap((_, input) => ['-map', String(input)]),
    '-c',
    'copy',
    ...(options.faststart ? ['-movflags', '+faststart'] : []),
    '-f',
    'mp4',
    output,
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
