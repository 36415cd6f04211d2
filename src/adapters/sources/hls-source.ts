// Decisions: docs/decisions/0034-hls-sources.md
import { AppError } from '../../core/errors.js';
import type { SourceStatus, StreamSource } from '../../core/sources/ports.js';
import { FetchError, type Fetcher } from './http-fetch.js';
import type { AudioLane } from '../../core/sources/ports.js';
import { loadPlaylist, OFFLINE_STATUSES, pickVariant, qualitiesOf } from './hls-playlist.js';
import { chooseAudio, type AudioChoice } from './hls-renditions.js';

const NOT_HLS = 'Only http(s) URLs of HLS playlists (.m3u8) are recorded as HLS.';
/** What to do with an HLS address whose stream has not begun (a server answering 404 until then). */
const NOT_ON_AIR = 'To record a stream that is not on air yet, follow its playlist URL (Follows), and Kura queues it when it starts';

/**
 * Any http(s) `.m3u8`: live once its media playlist lists segments and has not ended. A variant
 * whose audio is a separate rendition is recorded with the renditions `audio` chooses (see chooseAudio).
 */
export function createHlsSource(fetcher: Fetcher, audio: AudioChoice = 'default'): StreamSource {
  return {
    recognises: (url) => hlsUrl(url) !== null,
    async inspect(raw) {
      const url = hlsUrl(raw);
      if (url === null) return { kind: 'rejected', reason: NOT_HLS };
      const refused = fetcher.refusal(url.href);
      if (refused !== null) return { kind: 'rejected', reason: `Kura will not fetch this source: ${refused}.` };
      const unreadable = await unreadableReason(url.href, fetcher);
      if (unreadable !== null) return { kind: 'rejected', reason: unreadable };
      // HLS says nothing of titles or schedules: the submission does, and the watch job checks liveness
      return { kind: 'accepted', platform: 'hls', id: null, canonicalUrl: url.href, details: null };
    },
    async qualities(raw) {
      const url = hlsUrl(raw);
      if (url === null) throw new AppError('invalid', 'invalid_source', NOT_HLS);
      let playlist;
      try {
        playlist = await loadPlaylist(url.href, fetcher);
      } catch (error) {
        throw new AppError('invalid', 'invalid_source', `The playlist cannot be read: ${(error as Error).message}`);
      }
      // a media playlist has one quality: whatever it carries
      if (playlist.kind === 'media') return [{ code: 'best', resolution: 'as the source sends it', best: true }];
      return qualitiesOf(playlist.variants);
    },
    async check(sourceUrl, quality): Promise<SourceStatus> {
      try {
        let playlistUrl = sourceUrl;
        let lanes: readonly AudioLane[] = [];
        let playlist = await loadPlaylist(sourceUrl, fetcher);
        if (playlist.kind === 'master') {
          const variant = pickVariant(playlist.variants, quality);
          if (variant === undefined) return { state: 'not_yet', reason: 'the master playlist lists no variant yet' };
          playlistUrl = variant.url;
          lanes = chooseAudio(variant.audio ?? [], audio);
          playlist = await loadPlaylist(playlistUrl, fetcher);
        }
        if (playlist.kind !== 'media') return { state: 'not_yet', reason: 'a master playlist points at another master playlist' };
        if (playlist.segments.length === 0) return { state: playlist.ended ? 'ended' : 'not_yet', reason: 'no segment yet' };
        return { state: 'live', playlistUrl, ...(lanes.length > 0 ? { playlistAudio: lanes } : {}) };
      } catch (error) {
        if (error instanceof FetchError && error.refused) return { state: 'refused', reason: error.message };
        // 404/410: a server that answers the stream is not on air (yet); anything else is no answer, as a capture's playlist fetch counts it
        if (error instanceof FetchError && OFFLINE_STATUSES.includes(error.status)) return { state: 'not_yet', reason: error.message };
        if (error instanceof FetchError) return { state: 'not_yet', unanswered: true, reason: error.message };
        return { state: 'not_yet', unanswered: true, reason: `the playlist cannot be read: ${(error as Error).message}` };
      }
    },
  };
}

/**
 * Why a submitted playlist cannot be recorded, read now (a typo must not queue a record that waits
 * for hours): Kura will not fetch it (a name resolving to a private address, a redirect to one), it
 * cannot be fetched (404, a refused connection), is no playlist, or has ended without a segment.
 * null when it can: a playlist that lists no segment yet is a stream about to start.
 */
async function unreadableReason(url: string, fetcher: Fetcher): Promise<string | null> {
  let playlist;
  try {
    playlist = await loadPlaylist(url, fetcher);
  } catch (error) {
    if (error instanceof FetchError && error.refused) return `Kura will not fetch this source: ${error.message}.`;
    if (error instanceof FetchError) return `The playlist cannot be read: ${error.message}. ${NOT_ON_AIR}.`;
    return `The playlist cannot be read: it is not an HLS playlist (${(error as Error).message}).`;
  }
  if (playlist.kind === 'media' && playlist.ended && playlist.segments.length === 0)
    return `The playlist has ended and lists no segment: there is nothing to record.`;
  return null;
}

function hlsUrl(raw: string): URL | null {
  try {
    const url = new URL(raw);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.pathname.endsWith('.m3u8') ? url : null;
  } catch {
    return null;
  }
}
