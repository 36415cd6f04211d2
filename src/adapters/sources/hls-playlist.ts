// Decisions: docs/decisions/0133-live-sites-through-yt-dlp.md
import HLS from 'hls-parser';
import type { Quality } from '../../core/sources/ports.js';
import type { ByteRange, Fetcher } from './http-fetch.js';
import { renditionsOf, type AudioRendition } from './hls-renditions.js';

/** What a server that is live only sometimes (MediaMTX, Owncast, nginx-rtmp) answers for its playlist while no broadcast is on air. */
export const OFFLINE_STATUSES = [404, 410];

/** Where a segment's bytes are: a whole resource, or a byte range of one. */
export interface Resource {
  url: string;
  range: ByteRange | null;
}

/** How a segment is encrypted (`#EXT-X-KEY`); Kura decrypts `AES-128` and refuses the rest. */
export interface SegmentKey {
  method: string;
  url: string | null;
  /** null: the segment's media sequence number is the IV (RFC 8216 §5.2). */
  iv: Buffer | null;
}

export interface MediaSegment extends Resource {
  sequence: number;
  durationSeconds: number;
  discontinuity: boolean;
  /** The initialization section (`#EXT-X-MAP`) fMP4 segments need in front of them, if any. */
  init: Resource | null;
  /** null when the segment is not encrypted. */
  key: SegmentKey | null;
  /** A stitched-in ad, as Twitch marks one (`adSegments`): not part of the stream. */
  ad: boolean;
  /** A lane's segment in a capture with audio lanes, whose `sequence` is the capture's (see playlist-lanes.ts): the playlist listing it, and its media sequence there. */
  listed?: { playlistUrl: string; sequence: number };
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
  width?: number | null;
  height: number | null;
  /** Request headers its playlist and segments answer only with (a site's, as yt-dlp lists them). */
  headers?: Readonly<Record<string, string>>;
  /** The audio renditions of its group (`AUDIO=`), when a multivariant playlist lists them. */
  audio?: AudioRendition[];
}

/** A fetched playlist: a master's variants, or a media playlist with absolute segment URLs. */
export type Playlist = { kind: 'master'; variants: Variant[] } | ({ kind: 'media' } & MediaPlaylist);

export async function loadPlaylist(url: string, fetcher: Pick<Fetcher, 'text'>): Promise<Playlist> {
  return parsePlaylist(await fetcher.text(url), url);
}

/** A playlist's text, read as fetched from `url` (relative URIs resolve against it). */
export function parsePlaylist(text: string, url: string): Playlist {
  const parsed = HLS.parse(text);
  if (parsed.isMasterPlaylist) {
    const variants = (parsed as HLS.types.MasterPlaylist).variants
      .filter((v) => !v.isIFrameOnly)
      .map((v) => ({
        url: new URL(v.uri, url).href,
        bandwidth: v.bandwidth,
        width: v.resolution?.width ?? null,
        height: v.resolution?.height ?? null,
        audio: renditionsOf(v, url),
      }));
    return { kind: 'master', variants };
  }
  const media = parsed as HLS.types.MediaPlaylist;
  const ads = adSegments(media.segments);
  return {
    kind: 'media',
    text,
    ended: media.endlist,
    targetDurationSeconds: media.targetDuration,
    segments: media.segments.map((s) => ({
      sequence: s.mediaSequenceNumber,
      url: new URL(s.uri, url).href,
      range: byteRange(s.byterange),
      durationSeconds: s.duration,
      discontinuity: Boolean(s.discontinuity),
      init: s.map ? { url: new URL(s.map.uri, url).href, range: byteRange(s.map.byterange) } : null,
      key: segmentKey(s.key, url),
      ad: ads.has(s),
    })),
  };
}

/**
 * The segments a playlist marks as stitched-in ads, as Twitch does and streamlink's Twitch plugin
 * reads it (docs/research/live-sites-contract.md §2): a segment titled `Amazon…` in its `#EXTINF`,
 * or one whose `#EXT-X-PROGRAM-DATE-TIME` falls in an `#EXT-X-DATERANGE` of class
 * `twitch-stitched-ad` (or an id beginning `stitched-ad-`).
 */
function adSegments(segments: readonly HLS.types.Segment[]): Set<HLS.types.Segment> {
  const breaks = segments
    .map((s) => s.dateRange)
    .filter((range) => range !== undefined && (range.classId === 'twitch-stitched-ad' || range.id.startsWith('stitched-ad-')))
    .flatMap((range) => {
      const start = range?.start?.getTime();
      const end = range?.end?.getTime() ?? (start === undefined || range?.duration === undefined ? undefined : start + range.duration * 1000);
      return start === undefined || end === undefined ? [] : [{ start, end }];
    });
  const inBreak = (at: Date | undefined) => at !== undefined && breaks.some(({ start, end }) => at.getTime() >= start && at.getTime() < end);
  return new Set(segments.filter((s) => s.title?.includes('Amazon') === true || inBreak(s.programDateTime)));
}

function segmentKey(key: HLS.types.Key | null | undefined, playlistUrl: string): SegmentKey | null {
  if (key == null || key.method === 'NONE') return null;
  return {
    method: key.method,
    url: key.uri === undefined ? null : new URL(key.uri, playlistUrl).href,
    iv: key.iv === undefined ? null : Buffer.from(key.iv),
  };
}

/** hls-parser marks an absent offset -1; for EXT-X-MAP that means the resource's start. */
function byteRange(range: HLS.types.Byterange | undefined): ByteRange | null {
  return range ? { offset: Math.max(0, range.offset), length: range.length } : null;
}

/** One identity per resource and range, to tell whether two segments share an init section. */
export function resourceKey(resource: Resource): string {
  return resource.range ? `${resource.url}#${resource.range.offset}+${resource.range.length}` : resource.url;
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

/** What a stream offers, best first: one quality per height (the code `pickVariant` takes). */
export function qualitiesOf(variants: readonly Variant[]): Quality[] {
  const best = pickVariant(variants, null);
  const byHeight = new Map<number, Variant>();
  for (const variant of [...variants].sort((a, b) => b.bandwidth - a.bandwidth)) {
    if (variant.height !== null && !byHeight.has(variant.height)) byHeight.set(variant.height, variant);
  }
  const listed = [...byHeight.entries()]
    .sort(([a], [b]) => b - a)
    .map(([height, v]) => ({ code: `${height}p`, resolution: v.width ? `${v.width}x${height}` : `${height}p`, best: v === best }));
  if (best !== undefined && !listed.some((q) => q.best))
    listed.unshift({ code: 'best', resolution: best.height ? `${best.height}p` : 'as the source sends it', best: true });
  return listed;
}
