/**
 * ffmpeg's arguments for `seconds` of a lavfi test picture (e.g. `testsrc=size=320x180:rate=30`)
 * with a 440 Hz tone (unless `silent`), quiet but for errors: the input half of every encode the
 * tests make; the caller adds the codecs and the output.
 */
export function testSignal(picture: string, seconds: number, options: { silent?: boolean } = {}): string[] {
  const tone = options.silent ? [] : ['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000'];
  return ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', picture, ...tone, '-t', String(seconds)];
}
