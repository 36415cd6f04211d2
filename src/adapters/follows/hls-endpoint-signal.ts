// Decisions: docs/decisions/0054-follows-claims-and-sightings.md
import type { Follow, StreamCandidate } from '../../core/follows/follow.js';
import type { FollowSignal } from '../../core/follows/ports.js';
import { FetchError, type Fetcher } from '../sources/http-fetch.js';
import { OFFLINE_STATUSES, parsePlaylist, pickVariant, type MediaPlaylist, type Playlist } from '../sources/hls-playlist.js';

/**
 * The `playlist` signal of an HLS endpoint follow: the endpoint is live while its media playlist
 * (the follow's quality's variant, for a master playlist) lists segments and has not ended. An
 * offline endpoint is an answer, not a failure: 404/410, no segment, or ended → no candidate.
 * `look` throws an Error with the reason when the endpoint cannot be asked (refused by the
 * outbound policy, a network fault or time-out, another HTTP status, not a playlist).
 */
export function createHlsEndpointSignal(deps: { fetcher: Fetcher }): FollowSignal {
  return {
    name: 'playlist',
    host: (follow) => new URL(follow.url).host,
    async look(follow) {
      const playlist = await mediaPlaylist(follow, deps.fetcher);
      if (playlist === null || playlist.segments.length === 0 || playlist.ended) return [];
      const last = playlist.segments.at(-1) as MediaPlaylist['segments'][number];
      const position = `segment ${last.sequence}: ${last.url}`;
      const live: StreamCandidate = { url: follow.url, id: null, liveStatus: 'live', title: null, scheduledStart: null, membersOnly: null, position };
      return [live];
    },
  };
}

/** The media playlist the follow would record; null while the endpoint answers that it is offline. */
async function mediaPlaylist(follow: Follow, fetcher: Fetcher): Promise<MediaPlaylist | null> {
  const first = await fetchPlaylist(follow.url, fetcher);
  if (first === null || first.kind === 'media') return first;
  const variant = pickVariant(first.variants, follow.rules.quality);
  if (variant === undefined) throw new Error(`${follow.url}: the master playlist lists no variant`);
  const media = await fetchPlaylist(variant.url, fetcher);
  if (media?.kind === 'master') throw new Error(`${variant.url}: a master playlist points at another master playlist`);
  return media;
}

async function fetchPlaylist(url: string, fetcher: Fetcher): Promise<Playlist | null> {
  let text: string;
  try {
    text = await fetcher.text(url);
  } catch (error) {
    if (error instanceof FetchError && OFFLINE_STATUSES.includes(error.status)) return null;
    throw error; // a FetchError: its message names the URL and what went wrong
  }
  // the parser reads almost any text as an empty playlist, which would pass for "offline"
  if (!text.trimStart().startsWith('#EXTM3U')) throw new Error(`${url}: not an HLS playlist (it does not start with #EXTM3U)`);
  try {
    return parsePlaylist(text, url);
  } catch (error) {
    throw new Error(`${url}: not an HLS playlist (${(error as Error).message})`, { cause: error });
  }
}
