import { createRecordedBytes } from '../adapters/capture/recorded-bytes.js';
import { createSpool } from '../adapters/capture/spool.js';
import { createClipCutter } from '../adapters/media/clip-cutter.js';
import type { Config } from '../config/config.js';
import type { ArchiveStore } from '../core/archive/ports.js';
import { liveDepsOf } from '../core/playback/get-live-playlist.js';
import type { ClipDeps } from '../core/playback/clip-recording.js';
import type { ClipCutter } from '../core/playback/ports.js';
import type { Database } from './database.js';
import { spoolDirOf } from './storage.js';

/** What clips are cut with: ffmpeg and ffprobe (FFMPEG_PATH, FFPROBE_PATH), the longest clip, and how many an api process cuts at once (KURA_CLIP*). */
export function clipParts(config: Pick<Config, 'ffmpegPath' | 'ffprobePath' | 'clips'>): {
  cutter: ClipCutter;
  maxSeconds: number;
  limits: { atOnce: number; perCaller: number };
} {
  return {
    cutter: createClipCutter({ ffmpeg: config.ffmpegPath, ffprobe: config.ffprobePath }),
    maxSeconds: config.clips.maxSeconds,
    limits: { atOnce: config.clips.atOnce, perCaller: config.clips.perCaller },
  };
}

/** What `kura clip` cuts from: the records, the store, and what captures under way recorded (the store's chunks, and this data directory's spool). */
export function commandClipDeps(config: Config, database: Database, store: ArchiveStore): ClipDeps {
  const bytes = createRecordedBytes({ captures: database.captures, store, spool: createSpool(spoolDirOf(config)) });
  // the operator's own command: no longest clip
  return {
    ...liveDepsOf({ livestreams: database.livestreams, captures: database.captures, bytes }),
    store,
    cutter: clipParts(config).cutter,
    maxSeconds: Number.POSITIVE_INFINITY,
  };
}
