// Decisions: docs/decisions/0137-twitch-chat-over-irc.md
/**
 * Words every core domain shares (the kernel, with errors.ts, ids.ts and rate-limit.ts): a record's
 * platform and status, the shapes of ids, and an archive's integrity. It imports nothing, so any
 * domain may import it without reaching into another domain.
 */

/** States a viewer sees. `failed` keeps its reason; nothing is deleted for failing. */
export type LivestreamStatus = 'upcoming' | 'live' | 'finished' | 'failed';
export const LIVESTREAM_STATUSES = ['upcoming', 'live', 'finished', 'failed'] as const satisfies readonly LivestreamStatus[];

/**
 * Where a record's stream comes from: YouTube; an HLS playlist given as it is; Twitch; or another
 * site yt-dlp opens (its name in the channel id, `twitcasting:user`). Each is a source of its own
 * (src/adapters/sources), and an operator may take only some (KURA_SOURCES).
 */
export type Platform = 'youtube' | 'hls' | 'twitch' | 'site';
export const PLATFORMS = ['youtube', 'hls', 'twitch', 'site'] as const satisfies readonly Platform[];

/** The platforms whose live chat Kura captures beside the video, each read by its own chat source (decision 0137). */
export const CHAT_PLATFORMS = ['youtube', 'twitch'] as const satisfies readonly Platform[];
export type ChatPlatform = (typeof CHAT_PLATFORMS)[number];

/** Whether a record of `platform` has a live chat Kura captures. */
export function hasLiveChat(platform: Platform): platform is ChatPlatform {
  return (CHAT_PLATFORMS as readonly Platform[]).includes(platform);
}

/** Record ids: a YouTube video id, or an id Kura generated; safe in URLs and object keys. */
export const LIVESTREAM_ID_PATTERN = '^[A-Za-z0-9_-]{1,64}$';
/** A submitter as the API shows it: `provider/userId`. */
export const SUBMITTER_PATTERN = '^[a-z0-9_-]{1,32}/[^\\s/]{1,128}$';

/** Longest channel id a record may carry (an import refuses longer ones; so does every channel filter). */
export const CHANNEL_ID_MAX_LENGTH = 200;

/**
 * What the last verification of a stored archive found: `ok`, `missing` (no object in the store)
 * or `corrupt` (its size, or its sha256, is not what the record says).
 */
export type Integrity = 'ok' | 'missing' | 'corrupt';
export const INTEGRITY_STATES = ['ok', 'missing', 'corrupt'] as const satisfies readonly Integrity[];

/** A record's integrity flag and when it was last verified. */
export interface IntegrityFlag {
  state: Integrity;
  verifiedAt: Date;
}
