// Decisions: docs/decisions/0037-how-a-capture-ends.md
import type { EndReason } from '../../core/capture/capture.js';
import { FetchError, type Fetcher } from '../sources/http-fetch.js';
import { OFFLINE_STATUSES, parsePlaylist, type MediaPlaylist } from '../sources/hls-playlist.js';
import type { RecorderLimits } from './recorder-deps.js';
import type { SignedPlaylist } from './signed-playlist.js';

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
 * of a poll or two ago is within a window). Says so in words; null when it did not restart.
 */
export function restartedBroadcast(playlist: MediaPlaylist, nextSequence: number | null): string | null {
  const [first, newest] = [playlist.segments[0], playlist.segments.at(-1)];
  if (nextSequence === null || first === undefined || newest === undefined) return null;
  if (newest.sequence + playlist.segments.length >= nextSequence) return null;
  return `the playlist now lists sequences ${first.sequence}-${newest.sequence}, far below ${nextSequence}: a new broadcast`;
}

/** A media playlist as read from `url` (relative URIs resolve against it). */
export interface FetchedPlaylist {
  url: string;
  playlist: MediaPlaylist;
}

/**
 * A capture's media playlist; null when it could not be had, or why the capture ends (the source
 * is gone). A text the same as `previous`'s, from the same URL, is not parsed again: it is `previous`.
 */
export async function fetchMediaPlaylist(
  playlist: SignedPlaylist,
  fetcher: Fetcher,
  absence: SourceAbsence,
  log: (line: string) => Promise<void>,
  previous: FetchedPlaylist | null = null,
): Promise<FetchedPlaylist | EndReason | null> {
  try {
    await playlist.refreshBeforeExpiry();
    const { url } = playlist;
    const text = await fetcher.text(url);
    if (previous !== null && previous.url === url && previous.playlist.text === text) {
      absence.answered();
      return previous;
    }
    const loaded = parsePlaylist(text, url);
    if (loaded.kind !== 'media') throw new FetchError(`${url}: expected a media playlist`, 0);
    absence.answered();
    return { url, playlist: loaded };
  } catch (error) {
    await log(`playlist fetch failed: ${(error as Error).message}`);
    // a signed playlist URL that expired or was revoked answers 403/404/410: ask the source anew
    if (error instanceof FetchError && [403, 404, 410].includes(error.status)) await playlist.refresh(`it answered ${error.status}`);
    return absence.failed(error);
  }
}
