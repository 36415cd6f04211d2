// Decisions: docs/decisions/0133-live-sites-through-yt-dlp.md
import type { StreamDetails } from '../../core/sources/ports.js';
import { BROADCAST_MARK } from '../../core/sources/public-url.js';
import { LIVESTREAM_ID_PATTERN } from '../../core/vocabulary.js';
import type { Variant } from './hls-playlist.js';

// What yt-dlp says of a live broadcast on a site other than YouTube (Twitch, TwitCasting, …), read
// from its JSON as docs/research/live-sites-contract.md §1 describes each extractor's answer.

/** The part of `yt-dlp -J` output Kura reads of a site's broadcast. */
interface SiteInfo {
  id?: string;
  title?: string;
  description?: string | null;
  uploader?: string | null;
  uploader_id?: string | null;
  channel?: string | null;
  channel_id?: string | null;
  /** `twitch:stream`, `TwitCasting`, `niconico:live`: the site is what comes before a colon. */
  extractor?: string;
  webpage_url?: string;
  is_live?: boolean | null;
  live_status?: 'is_upcoming' | 'is_live' | 'post_live' | 'was_live' | 'not_live' | null;
  release_timestamp?: number | null;
  timestamp?: number | null;
  thumbnail?: string | null;
  thumbnails?: Array<{ url?: string; preference?: number; width?: number }>;
  formats?: Array<{
    url?: string;
    protocol?: string;
    vcodec?: string;
    acodec?: string;
    tbr?: number | null;
    width?: number | null;
    height?: number | null;
    http_headers?: Record<string, unknown>;
  }>;
}

/** What yt-dlp says of one broadcast on a site. */
export interface SiteVideo {
  /** The site, as the record's platform and its channel's namespace name it: `twitch`, `twitcasting`. */
  site: string;
  /** The broadcast's id on its site (Twitch's stream id, TwitCasting's movie id). */
  id: string;
  /** The page the broadcast is on (a Twitch channel's page is the page of each of its broadcasts). */
  pageUrl: string;
  liveStatus: 'is_upcoming' | 'is_live' | 'ended' | 'not_live';
  details: StreamDetails;
  /** Its HLS formats with video (and audio in them), as variants to pick a quality from. */
  variants: Variant[];
  /** The protocols of the formats it lists that are not HLS Kura can fetch (`websocket_frag`, `niconico_live`). */
  otherProtocols: string[];
}

/** The formats Kura records: HLS it fetches itself. `m3u8` is yt-dlp's ffmpeg-fetched HLS, `m3u8_native` its own. */
const HLS_PROTOCOLS = ['m3u8', 'm3u8_native'];

/** Reads yt-dlp's JSON for a site's broadcast; null when it is not one (no id, or no extractor named). */
export function readSiteVideo(json: unknown): SiteVideo | null {
  const info = json as SiteInfo;
  if (typeof info.id !== 'string' || info.id === '' || typeof info.extractor !== 'string') return null;
  const site = siteOf(info.extractor);
  const formats = info.formats ?? [];
  const hls = formats.filter((f) => typeof f.url === 'string' && HLS_PROTOCOLS.includes(f.protocol ?? ''));
  const channelLogin = info.uploader_id ?? info.channel_id ?? '';
  const start = info.live_status === 'is_upcoming' ? info.release_timestamp : (info.timestamp ?? info.release_timestamp);
  return {
    site,
    id: info.id,
    pageUrl: info.webpage_url ?? '',
    liveStatus: liveStatusOf(info),
    details: {
      // Twitch's `title` is its display name with "(live)"; what a person calls the title is its `description`
      title: (site === 'twitch' ? info.description : null) || info.title || info.id,
      channelName: info.uploader ?? info.channel ?? channelLogin,
      channelId: channelLogin === '' ? '' : `${site}:${channelLogin}`,
      scheduledStart: typeof start === 'number' ? new Date(start * 1000) : null,
      thumbnailUrl: bestThumbnail(info),
    },
    variants: hls
      .filter((f) => f.vcodec !== 'none')
      .map((f) => {
        const headers = siteHeaders(f.http_headers);
        return {
          url: f.url as string,
          bandwidth: Math.round((f.tbr ?? 0) * 1000),
          width: f.width ?? null,
          height: f.height ?? null,
          ...(headers ? { headers } : {}),
        };
      }),
    otherProtocols: [...new Set(formats.filter((f) => !HLS_PROTOCOLS.includes(f.protocol ?? '')).map((f) => f.protocol ?? 'unknown'))],
  };
}

/**
 * The headers of a format's `http_headers` that say where the request comes from, which a site's
 * CDN checks (TwitCasting's `_M3U8_HEADERS`: Origin and Referer); the others yt-dlp lists are its
 * own (a browser's User-Agent, Accept…) and Kura sends its own. Undefined: none.
 */
const SITE_HEADERS = ['Origin', 'Referer'];
function siteHeaders(given: Record<string, unknown> | undefined): Record<string, string> | undefined {
  const kept = SITE_HEADERS.flatMap((name) => {
    const value = Object.entries(given ?? {}).find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1];
    return typeof value === 'string' && value !== '' ? [[name, value] as const] : [];
  });
  return kept.length === 0 ? undefined : Object.fromEntries(kept);
}

/** `twitch:stream` → `twitch`, `TwitCasting` → `twitcasting`. */
function siteOf(extractor: string): string {
  return (extractor.split(':')[0] ?? extractor).toLowerCase().replace(/[^a-z0-9]/g, '');
}

function liveStatusOf(info: SiteInfo): SiteVideo['liveStatus'] {
  if (info.live_status === 'is_live' || (info.live_status == null && info.is_live === true)) return 'is_live';
  if (info.live_status === 'is_upcoming') return 'is_upcoming';
  if (info.live_status === 'was_live' || info.live_status === 'post_live') return 'ended';
  return 'not_live';
}

function bestThumbnail(info: SiteInfo): string | null {
  const [best] = [...(info.thumbnails ?? [])]
    .filter((t) => typeof t.url === 'string')
    .sort((a, b) => (b.preference ?? -100) - (a.preference ?? -100) || (b.width ?? 0) - (a.width ?? 0));
  return best?.url ?? info.thumbnail ?? null;
}

const RECORD_ID = new RegExp(LIVESTREAM_ID_PATTERN);

/** The record id of a site's broadcast: `twitch-41234567890`, characters a record id may not hold as `_`, at most 64. */
export function recordIdOf(video: Pick<SiteVideo, 'site' | 'id'>): string {
  const id = `${video.site}-${video.id.replace(/[^A-Za-z0-9_-]/g, '_')}`.slice(0, 64);
  if (!RECORD_ID.test(id)) throw new Error(`no record id can be made of ${video.site} ${video.id}`);
  return id;
}

/** The URL a record is kept under: the broadcast's page, with its id after `#` where the page does not name it. */
export function recordUrlOf(video: Pick<SiteVideo, 'id' | 'pageUrl'>, submitted: string): string {
  const page = new URL(video.pageUrl || submitted);
  page.hash = '';
  return page.href.includes(video.id) ? page.href : `${page.href}#${BROADCAST_MARK}${encodeURIComponent(video.id)}`;
}

/** A record URL's page (what yt-dlp is asked) and the broadcast it names, if it names one. */
export function broadcastOf(recordUrl: string): { page: string; broadcast: string | null } {
  const url = new URL(recordUrl);
  const marked = url.hash.startsWith(`#${BROADCAST_MARK}`) ? decodeURIComponent(url.hash.slice(BROADCAST_MARK.length + 1)) : null;
  url.hash = '';
  return { page: url.href, broadcast: marked };
}
