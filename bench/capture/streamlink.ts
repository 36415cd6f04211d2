// streamlink, the tool a user would otherwise run, recording the same live stream beside Kura:
// `streamlink --hls-live-restart -o FILE hls://URL best`, from the first listed segment as Kura
// and `ffmpeg -live_start_index 0` do (streamlink's default starts 3 segments before the live edge).
import { execFileSync } from 'node:child_process';
import { timed, type Usage } from './bare-ffmpeg.js';

/** streamlink's version line, or null when it is not installed (its runs are skipped). */
export function streamlinkVersion(): string | null {
  try {
    return execFileSync('streamlink', ['--version'], { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {
    return null;
  }
}

/** One streamlink recording of the live HLS stream at `url` into `output` (MPEG-TS, as streamlink writes it). */
export function recordStreamlink(url: string, output: string, cwd: string): Promise<Usage> {
  return timed(['streamlink', '--loglevel', 'error', '--hls-live-restart', '--force', '--output', output, `hls://${url}`, 'best'], cwd);
}

export const STREAMLINK_COMMAND = 'streamlink --hls-live-restart -o FILE hls://URL best';
