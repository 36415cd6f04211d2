/**
 * ffmpeg's arguments for `seconds` of a lavfi test picture (e.g. `testsrc=size=320x180:rate=30`)
 * with a 440 Hz tone (unless `silent`), quiet but for errors: the input half of every encode the
 * tests make; the caller adds the codecs and the output.
 */
export function testSignal(picture: string, seconds: number, options: { silent?: boolean } = {}): string[] {
  const tone = options.silent ? [] : ['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000'];
  return ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', picture, ...tone, '-t', String(seconds)];
}

/** The codecs of the tests' finished files: H.264 (ultrafast, a keyframe a second at 30 fps) and AAC unless `silent`. */
export function testCodecs(options: { silent?: boolean } = {}): string[] {
  return ['-nostdin', '-y', '-c:v', 'libx264', '-preset', 'ultrafast', '-g', '30', ...(options.silent ? [] : ['-c:a', 'aac'])];
}

/** A finished HLS output in 1 s segments, every one listed (`extra`: more muxer options before the file names). */
export function hlsOutput(segmentFile: string, playlist: string, extra: string[] = []): string[] {
  return ['-f', 'hls', '-hls_time', '1', '-hls_list_size', '0', ...extra, '-hls_segment_filename', segmentFile, playlist];
}
