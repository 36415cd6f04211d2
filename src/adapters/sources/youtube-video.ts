import type { StreamDetails } from '../../core/sources/ports.js';
import type { Variant } from './hls-playlist.js';
import { fragmentFormatsOf, type YtDlpFormat } from './youtube-formats.js';

// What yt-dlp says of one YouTube video, read from its JSON, and the login a video needs.

/** The part of `yt-dlp -J` output Kura reads. */
interface YtDlpInfo {
  id?: string;
  title?: string;
  channel?: string;
  uploader?: string;
  channel_id?: string;
  live_status?: 'is_upcoming' | 'is_live' | 'post_live' | 'was_live' | 'not_live' | null;
  release_timestamp?: number | null;
  /** `subscriber_only`: members-only; also `public`, `unlisted`, `needs_auth`, `premium_only`. */
  availability?: string | null;
  thumbnails?: Array<{ url?: string; preference?: number; width?: number; height?: number }>;
  thumbnail?: string;
  formats?: YtDlpFormat[];
}

/** yt-dlp's words for a video that is no more (removed, made private, its channel closed): checking again will not help. */
export const GONE = /private video|video is private|video unavailable|has been removed|account associated with this video has been terminated/i;

/**
 * yt-dlp's words for a members-only video Kura has no access to. yt-dlp says them only without
 * `--ignore-no-formats-error` (as an ERROR); Kura's runs pass it, so this is a fallback for an older
 * or differently configured yt-dlp: the truth is in the JSON (`accessOf`).
 */
export const MEMBERS_ONLY = /members-only content|join this channel to get access/i;

/**
 * Which login a video needs that Kura's yt-dlp runs do not have: `members_only` (a channel
 * member's), `sign_in` (any signed-in account's: age-restricted and similar). Null: none.
 */
export type AccessNeed = 'members_only' | 'sign_in';

/** What yt-dlp says about one YouTube video. */
export interface YouTubeVideo {
  liveStatus: NonNullable<YtDlpInfo['live_status']> | 'unknown';
  details: StreamDetails;
  /** Its HLS renditions with both video and audio (what yt-dlp lists for a live stream without `--live-from-start`). */
  variants: Variant[];
  /** Its adaptive formats recordable fragment by fragment from the first (what it lists with `--live-from-start`). */
  fragments: ReturnType<typeof fragmentFormatsOf>;
  /** `availability` as yt-dlp gives it: `subscriber_only`, `needs_auth`, `public`…; null when it does not say. */
  availability: string | null;
  /** How many formats yt-dlp listed (any kind). */
  formatCount: number;
  /** yt-dlp's meaningful warnings on this look, in its words (a bot check, a PO token, no JavaScript runtime…). */
  warnings: string[];
}

/**
 * The login a video needs and Kura's runs do not give it, read from yt-dlp's JSON: a members-only
 * (`subscriber_only`) or sign-in (`needs_auth`) video without a single format. An upcoming stream
 * has no formats even for a member, so it tells only when no cookies are handed at all; a live or
 * ended one without formats was refused. Null: no refusal seen.
 */
export function accessOf(video: YouTubeVideo, cookies: boolean): AccessNeed | null {
  const need = video.availability === 'subscriber_only' ? 'members_only' : video.availability === 'needs_auth' ? 'sign_in' : null;
  if (need === null || video.formatCount > 0) return null;
  return video.liveStatus === 'is_upcoming' && cookies ? null : need;
}

/** Why Kura cannot record a video that needs this login, in words that name the setting. */
export function noAccessReason(need: AccessNeed, cookies: boolean): string {
  if (need === 'members_only') {
    return cookies
      ? "Members-only: the cookies no longer give access to this stream (KURA_YTDLP_COOKIES must be a current member's cookies)."
      : "Members-only: Kura has no access to this stream (KURA_YTDLP_COOKIES is not set; a member's cookies are needed).";
  }
  return cookies
    ? 'YouTube asks to sign in (age-restricted or similar): the cookies no longer give access (KURA_YTDLP_COOKIES must be a current signed-in account).'
    : "YouTube asks to sign in (age-restricted or similar): Kura has no access (KURA_YTDLP_COOKIES is not set; a signed-in account's cookies are needed).";
}

/** Reads yt-dlp's JSON for a YouTube video. */
export function readYouTubeVideo(json: unknown): YouTubeVideo {
  const info = json as YtDlpInfo;
  const thumbnails = [...(info.thumbnails ?? [])]
    .filter((t) => typeof t.url === 'string' && !t.url.includes('.webp'))
    .sort((a, b) => (b.preference ?? -100) - (a.preference ?? -100) || (b.width ?? 0) - (a.width ?? 0));
  return {
    liveStatus: info.live_status ?? 'unknown',
    details: {
      title: info.title ?? info.id ?? '',
      channelName: info.channel ?? info.uploader ?? '',
      channelId: info.channel_id ?? '',
      scheduledStart: typeof info.release_timestamp === 'number' ? new Date(info.release_timestamp * 1000) : null,
      thumbnailUrl: thumbnails[0]?.url ?? info.thumbnail ?? null,
      ...(typeof info.availability === 'string' ? { membersOnly: info.availability === 'subscriber_only' } : {}),
    },
    variants: (info.formats ?? [])
      .filter((f) => typeof f.url === 'string' && (f.protocol === 'm3u8_native' || f.protocol === 'm3u8'))
      .filter((f) => f.vcodec !== 'none' && f.acodec !== 'none')
      .map((f) => ({ url: f.url as string, bandwidth: Math.round((f.tbr ?? 0) * 1000), width: f.width ?? null, height: f.height ?? null })),
    fragments: fragmentFormatsOf(info.formats ?? []),
    availability: typeof info.availability === 'string' ? info.availability : null,
    formatCount: Array.isArray(info.formats) ? info.formats.length : 0,
    warnings: [],
  };
}
