import type { FragmentedStream, FragmentFormat } from '../../core/sources/ports.js';

/** What came of one fragment of one track: its bytes, why it is lost, or `unmade` (past the end of a broadcast that ended). */
export type Fetched = { bytes: Buffer } | { lost: string } | { unmade: true };

/** The formats a capture of fragments records, for its log: `video 299 (avc1…, 1920x1080@60, 6000 kbit/s) and audio 140 (…), 2 s each`. */
export function describeFormats(stream: FragmentedStream): string {
  return `video ${describe(stream.video)} and audio ${describe(stream.audio)}, ${stream.fragmentSeconds} s each`;
}

function describe(format: FragmentFormat): string {
  const size = format.height === null ? '' : ` ${format.width ?? '?'}x${format.height}${format.fps ? `@${format.fps}` : ''}`;
  return `${format.id} (${format.codec}${size}, ${Math.round(format.bitrate / 1000)} kbit/s)`;
}
