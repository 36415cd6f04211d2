import type { EndReason } from '../../core/capture/capture.js';
import { FetchError } from '../sources/http-fetch.js';
import type { MediaPlaylist } from '../sources/hls-playlist.js';
import type { RecorderLimits } from './recorder-deps.js';

/** What a server that is live only sometimes (MediaMTX, Owncast, nginx-rtmp) answers once a broadcast stopped. */
const OFFLINE_STATUSES = [404, 410];

/**
 * Tells, from a capture's playlist fetches, when a source without ENDLIST is gone: its playlist
 * kept answering 404/410 for `offlineSeconds` (offline: the next broadcast is a new record), or
 * nothing answered at all for `unreachableSeconds`.
 */
export class SourceAbsence {
  private lastAnswerAt = Date.now();
  private offlineSince: number | null = null;

  constructor(private readonly limits: Pick<RecorderLimits, 'offlineSeconds' | 'unreachableSeconds'>) {}

  answered(): void {
    this.lastAnswerAt = Date.now();
    this.offlineSince = null;
  }

  /** A failed playlist fetch: why the capture ends now, else null. */
  failed(error: unknown): EndReason | null {
    const now = Date.now();
    if (error instanceof FetchError && OFFLINE_STATUSES.includes(error.status)) {
      this.lastAnswerAt = now; // the server answers: it says the broadcast is gone, which the offline time-out judges
      this.offlineSince ??= now;
      return now - this.offlineSince > this.limits.offlineSeconds * 1000 ? 'offline' : null;
    }
    return now - this.lastAnswerAt > this.limits.unreachableSeconds * 1000 ? 'source_unreachable' : null;
  }
}

/**
 * A new broadcast on the same playlist URL: its media sequence restarted, every listed segment
 * below what was recorded and the newest more than a window behind (a cache serving the playlist
 * of a poll or two ago is within a window).
 */
export function restartedBroadcast(playlist: MediaPlaylist, nextSequence: number | null): boolean {
  const newest = playlist.segments.at(-1);
  if (nextSequence === null || newest === undefined) return false;
  return newest.sequence + playlist.segments.length < nextSequence;
}
