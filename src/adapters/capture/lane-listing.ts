// Decisions: docs/decisions/0136-separate-audio-renditions-as-lanes.md
import type { AudioLane } from '../../core/sources/ports.js';
import { laneSequence } from '../../core/capture/playlist-lanes.js';
import { FetchError, type Fetcher } from '../sources/http-fetch.js';
import { parsePlaylist, type MediaPlaylist, type MediaSegment } from '../sources/hls-playlist.js';

/** A lane's media playlist as fetched from `url`. */
export interface LanePlaylist {
  url: string;
  playlist: MediaPlaylist;
}

/**
 * The video's and the audio renditions' playlists as one listing in the capture's numbering (see
 * playlist-lanes.ts): media sequence s of every lane, video first, for each s all of them list,
 * so the listing only ever grows at its end as theirs do. A segment of a rendition carries no
 * seconds, no discontinuity (the video's starts the part) and the video's ad mark. Ended once
 * every lane has ended.
 */
export function laneListing(lanes: readonly LanePlaylist[]): MediaPlaylist {
  const count = lanes.length;
  const bySequence = lanes.map(({ playlist }) => new Map(playlist.segments.map((segment) => [segment.sequence, segment])));
  const from = Math.max(...lanes.map(({ playlist }) => playlist.segments[0]?.sequence ?? Number.POSITIVE_INFINITY));
  const to = Math.min(...lanes.map(({ playlist }) => playlist.segments.at(-1)?.sequence ?? Number.NEGATIVE_INFINITY));
  const segments: MediaSegment[] = [];
  for (let s = from; s <= to; s++) {
    const slot = bySequence.map((listed) => listed.get(s));
    const [video] = slot;
    if (video === undefined || slot.some((segment) => segment === undefined)) break; // a hole in a listing: the rest waits for the next poll
    for (const [lane, segment] of (slot as MediaSegment[]).entries()) {
      segments.push({
        ...segment,
        sequence: laneSequence(s, lane, count),
        durationSeconds: lane === 0 ? segment.durationSeconds : 0,
        discontinuity: lane === 0 && segment.discontinuity,
        ad: video.ad,
        listed: { playlistUrl: (lanes[lane] as LanePlaylist).url, sequence: s },
      });
    }
  }
  return {
    targetDurationSeconds: (lanes[0] as LanePlaylist).playlist.targetDurationSeconds,
    ended: lanes.every(({ playlist }) => playlist.ended),
    text: lanes.map(({ playlist }) => playlist.text).join('\n'),
    segments,
  };
}

/**
 * The renditions whose numbering meets the video's: a rendition's segments are paired with the
 * video's by media sequence number, as packagers number the renditions of one stream alike; one
 * whose listing shares no number with the video's (numbered otherwise) cannot be paired.
 */
export function pairedRenditions(video: MediaPlaylist, audio: readonly LanePlaylist[], lanes: readonly AudioLane[]): AudioLane[] {
  const [first, last] = [video.segments[0]?.sequence, video.segments.at(-1)?.sequence];
  if (first === undefined || last === undefined) return [...lanes];
  return lanes.filter((_, i) => {
    const listed = audio[i]?.playlist.segments ?? [];
    return listed.length === 0 || listed.some((segment) => segment.sequence >= first && segment.sequence <= last);
  });
}

/** Fetches each rendition's media playlist; throws the first fetch's failure (a FetchError, or one when it is no media playlist). */
export async function fetchRenditions(lanes: readonly AudioLane[], fetcher: Pick<Fetcher, 'text'>): Promise<LanePlaylist[]> {
  return Promise.all(
    lanes.map(async ({ url }) => {
      const playlist = parsePlaylist(await fetcher.text(url), url);
      if (playlist.kind !== 'media') throw new FetchError(`${url}: expected a media playlist`, 0);
      return { url, playlist };
    }),
  );
}

/** A rendition as the capture's log names it: `eng (English)`. */
export function describeLane(lane: AudioLane): string {
  return lane.language === null ? lane.name : `${lane.language} (${lane.name})`;
}
