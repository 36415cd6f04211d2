import { rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { YTDLP_STAND_IN } from './app.js';
import type { Googlevideo } from './googlevideo-stand-in.js';

/** What the yt-dlp STAND-IN (test/support/bin/yt-dlp-stand-in.mjs) of a test answers: its state file in `dir`, and the environment naming both. */
export function ytDlpStandIn(dir: string) {
  const file = path.join(dir, 'yt-dlp-state.json');
  return {
    /** The state file (its failure counters sit next to it: `failuresCounterFile(file, id)`). */
    file,
    /** YTDLP_PATH and YTDLP_STAND_IN_STATE for a `kura` process. */
    env: { YTDLP_PATH: YTDLP_STAND_IN, YTDLP_STAND_IN_STATE: file },
    /** What YouTube answers from now on; replaced whole (by a rename), so the stand-in never reads half of it. */
    async says(state: object): Promise<void> {
      await writeFile(`${file}.new`, JSON.stringify(state));
      await rename(`${file}.new`, file);
    },
  };
}

/**
 * The yt-dlp stand-in's state for `videoId` live on the googlevideo STAND-IN since
 * `startedSecondsAgo`: `-J --live-from-start` lists its adaptive formats.
 */
export function liveFromStart(googlevideo: Googlevideo, videoId: string, startedSecondsAgo: number): object {
  const releaseTimestamp = Math.floor(Date.now() / 1000) - startedSecondsAgo;
  return {
    liveStatus: 'is_live',
    releaseTimestamp,
    videos: { [videoId]: { liveStatus: 'is_live', releaseTimestamp, adaptive: googlevideo.stateFor(videoId) } },
  };
}

/**
 * The yt-dlp stand-in's state for `videoId` ended on the googlevideo STAND-IN (`end()` called) and
 * still DVR: `-J` lists its adaptive formats as post_live, fragments 0 … head − 2 (research §7.2).
 */
export function postLive(googlevideo: Googlevideo, videoId: string, startedSecondsAgo: number): object {
  const releaseTimestamp = Math.floor(Date.now() / 1000) - startedSecondsAgo;
  return {
    liveStatus: 'post_live',
    releaseTimestamp,
    videos: { [videoId]: { liveStatus: 'post_live', releaseTimestamp, adaptive: googlevideo.stateFor(videoId) } },
  };
}

/** Where the yt-dlp stand-in counts the failing runs it has served for `videoId` (delete it to start the count over). */
export function failuresCounterFile(stateFile: string, videoId: string): string {
  return `${stateFile}.failures-${videoId}`;
}
