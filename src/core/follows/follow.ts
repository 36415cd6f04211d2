import type { RateLimit } from '../rate-limit.js';
import type { RetentionChange, RetentionRules } from '../retention/retention-rules.js';

/**
 * A follow: a source Kura watches for new streams by itself (a YouTube channel, a Holodex
 * organisation or topic, an HLS endpoint that is live only sometimes, a Twitch channel), with the rules that pick
 * which of its streams are queued. Created by an admin; its streams are queued as if submitted,
 * with the submitter `follow/{id}`.
 */
export type FollowKind = 'youtube_channel' | 'holodex' | 'hls_endpoint' | 'twitch_channel';
export const FOLLOW_KINDS = ['youtube_channel', 'holodex', 'hls_endpoint', 'twitch_channel'] as const satisfies readonly FollowKind[];

/**
 * The ways Kura learns of a followed source's streams. A YouTube channel has two (its Atom feed
 * and a yt-dlp look at its live/upcoming tabs), so one failing signal does not lose a stream. A
 * Twitch channel has Twitch's own API (Helix `GET /streams`, decision 0139).
 */
export type SignalName = 'feed' | 'tabs' | 'holodex' | 'playlist' | 'helix';
export const SIGNALS_OF: Record<FollowKind, readonly SignalName[]> = {
  youtube_channel: ['feed', 'tabs'],
  holodex: ['holodex'],
  hls_endpoint: ['playlist'],
  twitch_channel: ['helix'],
};

export type MembersOnlyRule = 'skip' | 'include';
export const MEMBERS_ONLY_RULES = ['skip', 'include'] as const satisfies readonly MembersOnlyRule[];

/** Follow ids: 12 URL-safe characters; they appear in submitters as `follow/{id}`. */
export const FOLLOW_ID_PATTERN = '^[A-Za-z0-9_-]{1,64}$';

/** Which streams of the source are queued. */
export interface FollowRules {
  /** A regular expression (JavaScript, case-insensitive) a title must match; null: any title. */
  titleInclude: string | null;
  /** A regular expression (case-insensitive) no queued title may match; null: none excluded. */
  titleExclude: string | null;
  /** Members-only streams: skipped, or queued (and failed with a clear reason if Kura has no access). */
  membersOnly: MembersOnlyRule;
  /** Quality code asked of every queued stream (`720p`); null: the best. */
  quality: string | null;
}

/** How one signal of a follow fared. */
export interface SignalHealth {
  signal: SignalName;
  lastCheckedAt: Date | null;
  /** When the signal last answered (a feed parsed, a tab listed, a playlist answered even 404). */
  lastOkAt: Date | null;
  /** The last failure's words, whole (the admin's); null once it answered again. */
  lastError: string | null;
  /**
   * The same failure as the public may read it: URLs redacted, a refused address not named
   * (`publicErrorWords`). Absent in health kept before it was: then derived from `lastError`.
   */
  lastErrorPublic?: string | null;
  lastErrorAt: Date | null;
  nextCheckAt: Date;
}

export interface Follow {
  id: string;
  kind: FollowKind;
  /**
   * The source in its one kept form: `https://www.youtube.com/channel/UC…` (a handle is resolved
   * once, at creation), `holodex:org/Hololive` or `holodex:topic/singing`, the HLS playlist URL, or
   * `https://www.twitch.tv/{login}` (the login in lower case).
   */
  url: string;
  /** The channel its records carry: the YouTube channel id; `twitch:{login}`; for an HLS endpoint, a slug of its name. Null for Holodex (each stream has its own). */
  channelId: string | null;
  /** The channel's name (from YouTube, or `--channel`); for Holodex, the organisation or topic. */
  channelName: string;
  /** HLS endpoints: each broadcast's record title, before its start time; null: the channel name. */
  title: string | null;
  rules: FollowRules;
  /** How many of the archives it queued are kept (0077); no limit: its channel's rules, else the instance's. */
  retention: RetentionRules;
  paused: boolean;
  /** The admin who created it (`provider/userId`). */
  createdBy: string;
  createdAt: Date;
  /** Streams this follow queued, ever. */
  queuedCount: number;
  lastCheckedAt: Date | null;
  /** When the next of its signals is due (paused follows are not checked). */
  nextCheckAt: Date;
  /**
   * Since when every signal has failed, or the cookies have not opened the members-only streams it
   * includes (`accessRefused`); null while one signal answers and access works.
   */
  failingSince: Date | null;
  signals: SignalHealth[];
  /** YouTube refused a members-only (or sign-in) stream the follow includes: the cookies no longer give access. Null: none since they last did. */
  accessRefused: AccessRefusal | null;
}

/**
 * A members-only (or sign-in) stream the follow includes that YouTube would not open for Kura: the
 * cookies (KURA_YTDLP_COOKIES) no longer give access. Kept until the refused stream opens again
 * (looked at again at every check) or the follow stops including members-only streams.
 */
export interface AccessRefusal {
  /** In words: "the cookies no longer give access to members-only streams (KURA_YTDLP_COOKIES): YouTube refused …". */
  error: string;
  /** When YouTube first refused (this spell). */
  since: Date;
  /** The stream refused last, looked at again at each check. */
  probeUrl: string;
}

/** A follow whose signals all fail this long is unhealthy: flagged in the API, UI and /metrics. */
export const UNHEALTHY_AFTER_SECONDS = 3600;

/** How many follows one admin may add through the API (every attempt counts: each may ask YouTube). */
export const FOLLOW_CREATION_RATE: RateLimit = { limit: 30, windowSeconds: 60 };

export type FollowHealth = 'ok' | 'failing' | 'unhealthy' | 'paused';

export function healthOf(follow: Pick<Follow, 'paused' | 'failingSince'>, now: Date): FollowHealth {
  if (follow.paused) return 'paused';
  if (follow.failingSince === null) return 'ok';
  return now.getTime() - follow.failingSince.getTime() >= UNHEALTHY_AFTER_SECONDS * 1000 ? 'unhealthy' : 'failing';
}

/** How a follow appears among a record's submitters. */
export function followSubmitter(followId: string): string {
  return `follow/${followId}`;
}

/** What `kura follow add` and `POST /api/follows` take. */
export interface FollowRequest {
  /** A YouTube channel URL (`/channel/UC…`, `/@handle`), a bare `UC…` id, `holodex:org/NAME`, `holodex:topic/NAME`, an HLS playlist URL, or a Twitch channel URL. */
  url: string;
  /** The channel's name (HLS endpoints: also the default title of its records). */
  channel?: string;
  /** HLS endpoints: the title of each broadcast's record, before its start time. */
  title?: string;
  titleInclude?: string;
  titleExclude?: string;
  membersOnly?: MembersOnlyRule;
  quality?: string;
  /** Retention of the archives it queues (0077); left out: no limit. */
  keepLast?: number;
  maxAgeDays?: number;
  maxGb?: number;
}

/** What `PATCH /api/follows/{id}` changes; a null rule clears it. */
export interface FollowChange {
  channel?: string;
  title?: string | null;
  titleInclude?: string | null;
  titleExclude?: string | null;
  membersOnly?: MembersOnlyRule;
  quality?: string | null;
  paused?: boolean;
  /** Retention limits (0077); null clears one. */
  retention?: RetentionChange;
}

/** A stream a signal saw; what is known of it depends on the signal (a feed entry says little). */
export interface StreamCandidate {
  /** Where it is recorded from: a YouTube watch URL, the HLS playlist, or the Twitch channel's page. */
  url: string;
  /** The record id it would be kept under (a YouTube video id, `twitch-{stream id}`); null for an HLS broadcast (a new record each time). */
  id: string | null;
  title: string | null;
  scheduledStart: Date | null;
  liveStatus: 'upcoming' | 'live' | 'unknown';
  /** Null when the signal does not say (the feed does not). */
  membersOnly: boolean | null;
  /** When the video was published (the feed says; an announced stream is published when announced). */
  publishedAt?: Date;
  /**
   * An HLS broadcast: where its playlist is, `segment {sequence}: {URL}` of its last segment. A
   * playlist that has not moved since the follow last saw it is the broadcast Kura saw already,
   * left in place; one whose sequence did not go back is the same broadcast going on.
   */
  position?: string;
  /** The stream's channel, when the signal names it (Holodex: each stream's own). */
  channelId?: string;
  channelName?: string;
}

/** What Kura decided about a stream a follow saw, kept so it is decided once (and shown, so a miss explains itself). */
export type SightingVerdict = 'queued' | 'known' | 'skipped' | 'later' | 'failed';

export interface Sighting {
  followId: string;
  /** The stream's id (a YouTube video id). */
  streamId: string;
  title: string | null;
  verdict: SightingVerdict;
  /** Why, in words: "the title does not match /karaoke/i", "members-only (the follow skips them)", "scheduled 2026-11-30 18:00 UTC, beyond the 48 h horizon". */
  reason: string;
  seenAt: Date;
  /** When to decide again (`later`: when it comes into the horizon; a failed look: the next poll); null: decided for good. */
  recheckAt: Date | null;
}
