// Decisions: docs/decisions/0071-watching-a-capture-of-fragments.md
import HLS from 'hls-parser';

/**
 * The track playlists of a capture of a source's fragments (`live/video.m3u8`, `live/audio.m3u8`,
 * beside `live.m3u8`), as the page's WebM player reads them: each fragment's time, URL and section.
 */

export type Track = 'video' | 'audio';
export const TRACKS: readonly Track[] = ['video', 'audio'];

/** A fragment as its track's playlist lists it: its time on the playlist's timeline, its URL (null: lost), and its section's URL. */
export interface Listed {
  start: number;
  end: number;
  url: string | null;
  init: string;
}

/** The MSE types of each track, by the container its playlist names and the multivariant playlist's CODECS (video, audio). */
export function mseTypes(containers: Record<Track, 'webm' | 'mp4'>, codecs: string | null): Record<Track, string> {
  const [video, audio] = codecs?.split(',').map((codec) => codec.trim()) ?? [];
  return {
    video: `video/${containers.video}; codecs="${video ?? (containers.video === 'webm' ? 'vp9' : 'avc1.4d401f')}"`,
    audio: `audio/${containers.audio}; codecs="${audio ?? (containers.audio === 'webm' ? 'opus' : 'mp4a.40.2')}"`,
  };
}

/** Each track's container, as the section its playlist names says (`init-{track}.webm` or `.mp4`); null while a playlist cannot be read. */
export async function fragmentContainers(base: URL): Promise<Record<Track, 'webm' | 'mp4'> | null> {
  const found: Partial<Record<Track, 'webm' | 'mp4'>> = {};
  for (const track of TRACKS) {
    const listed = await loadTrack(base, track);
    const init = listed?.fragments[0]?.init;
    if (init === undefined) return null;
    found[track] = init.endsWith('.webm') ? 'webm' : 'mp4';
  }
  return found as Record<Track, 'webm' | 'mp4'>;
}

/** A track's fragments on its playlist's timeline (fragment n begins at n × its length) and whether the capture ended. */
export async function loadTrack(base: URL, track: Track): Promise<{ fragments: Listed[]; target: number; ended: boolean; status: number } | null> {
  const url = new URL(`live/${track}.m3u8`, base);
  const response = await fetch(url, { credentials: 'same-origin', cache: 'no-store' }).catch(() => null);
  if (response === null || !response.ok) return response === null ? null : { fragments: [], target: 0, ended: false, status: response.status };
  const playlist = HLS.parse(await response.text());
  if (playlist.isMasterPlaylist) return null;
  const fragments: Listed[] = [];
  let init = '';
  for (const segment of playlist.segments) {
    if (segment.map !== undefined && segment.map !== null) init = new URL(segment.map.uri, url).href;
    const start = fragments.at(-1)?.end ?? segment.mediaSequenceNumber * segment.duration;
    fragments.push({ start, end: start + segment.duration, url: segment.gap === true ? null : new URL(segment.uri, url).href, init });
  }
  return { fragments, target: playlist.targetDuration, ended: playlist.endlist, status: response.status };
}
