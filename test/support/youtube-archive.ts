import path from 'node:path';
import { expect } from 'vitest';
import type { FragmentRequest } from './googlevideo-stand-in.js';
import { waitForRecord } from './records.js';
import { postLive } from './yt-dlp-state.js';
import type { YouTubeHarness } from './youtube-harness.js';
import type { FragmentMaterial } from './youtube-fragments.js';

/** A request that fetched fragment `sq` of `itag` whole. */
export const fetchedFragment = (itag: number, sq: number) => (r: FragmentRequest) => r.itag === itag && r.sq === sq && r.status === 200;

/** The bigger video's itag: the one Kura records of the stand-ins' material. */
export const recordedVideoItag = (material: FragmentMaterial): number => material.representations[1]?.itag ?? 0;

/** What an end-to-end test of one YouTube video through the stand-ins checks of its archive. */
export function youtubeArchive(y: YouTubeHarness, videoId: string) {
  return {
    /** The archive's MP4 on the fs store. */
    file: () => path.join(y.cwd, 'data', 'archive', 'archives', videoId, `${videoId}.mp4`),
    /** Once Kura fetched fragment `lastSq`, the broadcast ends, and yt-dlp says post_live. */
    async endsAfter(lastSq: number, material: FragmentMaterial, startedSecondsAgo: number): Promise<void> {
      await y.googlevideo.seen(fetchedFragment(recordedVideoItag(material), lastSq), 1);
      y.googlevideo.end(videoId);
      await y.says(postLive(y.googlevideo, videoId, startedSecondsAgo));
    },
    /** The record once finished (its log in the failure's message otherwise), with its details and capture log from the API. */
    async finished(api: string, timeoutMs = 240_000) {
      const done = await waitForRecord(y.db.url, videoId, (r) => r.status === 'finished' || r.status === 'failed', timeoutMs);
      const log = await fetch(`${api}/api/download/${videoId}/log`).then((r) => r.text());
      expect(done.status, `${done.failure_reason ?? ''}\n${log}`).toBe('finished');
      const details = await fetch(`${api}/api/video/${videoId}`).then((r) => r.json());
      return { details, log };
    },
  };
}
