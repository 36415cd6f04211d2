import { createClipCutter } from '../adapters/media/clip-cutter.js';
import type { Config } from '../config/config.js';
import type { ClipCutter } from '../core/playback/ports.js';

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
