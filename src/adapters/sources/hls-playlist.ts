import HLS from 'hls-parser';
import type { Fetcher } from './http-fetch.js';

export interface MediaSegment {
  sequence: number;
  url: string;
  durationSeconds: number;
  discontinuity: boolean;
}

export interface MediaPlaylist {
  targetDurationSeconds: number;
  segments: MediaSegment[];
  ended: boolean;
  /** The raw text, to tell whether the playlist changed between polls. */
  text: string;
}

export interface Variant {
  url: string;
  bandwidth: number;
  height: number | null;
}

/** A fetched playlist: a master's variants, or a media playlist with absolute segment URLs. */
export type Playlist = { kind: 'master'; variants: Variant[] } | ({ kind: 'media' } & MediaPlaylist);

export async function loadPlaylist(url: string, fetcher: Fetcher): Promise<Playlist> {
  const text = await fetcher.text(url);
  const parsed = HLS.parse(text);
  if (parsed.isMasterPlaylist) {
    const variants = (parsed as HLS.types.MasterPlaylist).variants
      .filter((v) => !v.isIFrameOnly)
      .map((v) => ({ url: new URL(v.uri, url).href, bandwidth: v.bandwidth, height: v.resolution?.height ?? null }));
    return { kind: 'master', variants };
  }
  const media = parsed as HLS.types.MediaPlaylist;
  return {
    kind: 'media',
    text,
    ended: media.endlist,
    targetDurationSeconds: media.targetDuration,
    segments: media.segments.map((s) => ({
      sequence: s.mediaSequenceNumber,
      url: new URL(s.uri, url).href,
      durationSeconds: s.duration,
      discontinuity: Boolean(s.discontinuity),
    })),
  };
}

/**
 * Picks the variant for a quality code: `best` (or none) is the highest bandwidth; `720p` the
 * best variant of at most that height, else the smallest one.
 */
export function pickVariant(variants: readonly Variant[], quality: string | null): Variant | undefined {
  const byBandwidth = [...variants].sort((a, b) => b.bandwidth - a.bandwidth);
  const height = quality?.match(/^(\d{3,4})p$/)?.[1];
  if (height === undefined) return byBandwidth[0];
  return byBandwidth.find((v) => v.height !== null && v.height <= Number(height)) ?? byBandwidth.at(-1);
}
