// Decisions: docs/decisions/0138-twitch-eventsub-stream-online.md
// The follows slice of the configuration (issue 17), parsed by src/config.ts from the environment it read.
import { createHmac } from 'node:crypto';
import type { SignalName } from '../core/follows/follow.js';

/** How the worker checks followed channels. */
export interface FollowConfig {
  /** Seconds between two looks of each signal (KURA_FOLLOW_POLL_SECONDS overrides them all). */
  intervals: Record<SignalName, number>;
  /** Streams scheduled further ahead than this are queued when they come into it (KURA_FOLLOW_HORIZON_HOURS). */
  horizonSeconds: number;
  /** Requests one worker sends one host per minute (KURA_FOLLOW_HOST_RATE). */
  hostRequestsPerMinute: number;
  /** Follows checked at once per worker (KURA_FOLLOW_CONCURRENCY). */
  concurrency: number;
  /** KURA_YOUTUBE_FEED_URL: the Atom feed; the signal adds `?channel_id=UC…`. */
  youtubeFeedUrl: string;
  /** KURA_HOLODEX_URL: the Holodex API base. */
  holodexUrl: string;
  /** HOLODEX_API_KEY; unset: Holodex follows are refused. */
  holodexApiKey: string | undefined;
  /** KURA_TWITCH_CLIENT_ID and KURA_TWITCH_CLIENT_SECRET (an app's, for Helix); unset: Twitch follows are refused. */
  twitch: TwitchApp | undefined;
}

/** The Twitch application Kura asks Helix as (an app access token, client credentials grant). */
export interface TwitchApp {
  clientId: string;
  clientSecret: string;
  /** KURA_TWITCH_API_URL: Helix, `https://api.twitch.tv/helix`. */
  apiUrl: string;
  /** KURA_TWITCH_AUTH_URL: where app tokens are granted, `https://id.twitch.tv/oauth2`. */
  authUrl: string;
  /** Where Twitch's EventSub posts `stream.online`, and the secret its messages are signed with (decision 0138); null: EventSub off, polling alone. */
  eventSub: { callbackUrl: string; secret: string } | null;
}

/** The path of the EventSub callback under the public URL. */
export const EVENTSUB_CALLBACK_PATH = '/api/twitch/eventsub';

/**
 * Default seconds between looks: the feed is cheap, the yt-dlp tab look is not, a playlist answers
 * fast — and must be looked at within half its window, or a broadcast's first segment leaves it
 * before Kura sees it: 5 s (jitter included) keeps windows of 12 s and more. Helix answers a hundred
 * channels a request, and Twitch keeps no stream's beginning: 15 s.
 */
export const DEFAULT_INTERVALS: Record<SignalName, number> = { feed: 600, tabs: 3600, holodex: 900, playlist: 4.5, helix: 15 };

type Read = (name: string) => string | undefined;
type Numeric = (name: string, fallback: number, min: number, max: number) => number;

/** The follows slice of the environment; `httpUrl` adds its own problems. */
export function parseFollow(
  read: Read,
  numbers: { integer: Numeric; decimal: Numeric },
  httpUrl: (name: string, raw: string) => string,
  problems: string[],
  publicUrl: string,
): FollowConfig {
  const { integer, decimal } = numbers;
  const poll = read('KURA_FOLLOW_POLL_SECONDS') === undefined ? undefined : decimal('KURA_FOLLOW_POLL_SECONDS', 600, 1, 86_400);
  const intervals = { ...DEFAULT_INTERVALS };
  if (poll !== undefined) for (const signal of Object.keys(intervals) as SignalName[]) intervals[signal] = poll;
  const url = (name: string, fallback: string) => {
    const raw = read(name);
    return raw === undefined ? fallback : httpUrl(name, raw);
  };
  return {
    intervals,
    horizonSeconds: decimal('KURA_FOLLOW_HORIZON_HOURS', 48, 0, 24 * 365) * 3600,
    hostRequestsPerMinute: decimal('KURA_FOLLOW_HOST_RATE', 60, 0.1, 60_000),
    concurrency: integer('KURA_FOLLOW_CONCURRENCY', 4, 1, 100),
    youtubeFeedUrl: url('KURA_YOUTUBE_FEED_URL', 'https://www.youtube.com/feeds/videos.xml'),
    holodexUrl: url('KURA_HOLODEX_URL', 'https://holodex.net/api/v2'),
    holodexApiKey: read('HOLODEX_API_KEY'),
    twitch: twitchApp(read, url, problems, publicUrl),
  };
}

function twitchApp(read: Read, url: (name: string, fallback: string) => string, problems: string[], publicUrl: string): TwitchApp | undefined {
  const [clientId, clientSecret] = [read('KURA_TWITCH_CLIENT_ID'), read('KURA_TWITCH_CLIENT_SECRET')];
  const eventSub = read('KURA_TWITCH_EVENTSUB') ?? 'auto';
  if (!['auto', 'on', 'off'].includes(eventSub)) problems.push(`KURA_TWITCH_EVENTSUB must be auto, on or off (got "${eventSub}")`);
  if (clientId === undefined && clientSecret === undefined) {
    if (eventSub === 'on') problems.push('KURA_TWITCH_EVENTSUB=on needs KURA_TWITCH_CLIENT_ID and KURA_TWITCH_CLIENT_SECRET');
    return undefined;
  }
  if (clientId === undefined || clientSecret === undefined) {
    problems.push(
      'KURA_TWITCH_CLIENT_ID and KURA_TWITCH_CLIENT_SECRET go together: set both (an application of https://dev.twitch.tv/console/apps), or neither',
    );
    return undefined;
  }
  return {
    clientId,
    clientSecret,
    apiUrl: url('KURA_TWITCH_API_URL', 'https://api.twitch.tv/helix'),
    authUrl: url('KURA_TWITCH_AUTH_URL', 'https://id.twitch.tv/oauth2'),
    eventSub:
      eventSub === 'on' || (eventSub === 'auto' && twitchTakes(publicUrl))
        ? { callbackUrl: `${publicUrl.replace(/\/+$/, '')}${EVENTSUB_CALLBACK_PATH}`, secret: eventSubSecret(clientSecret) }
        : null,
  };
}

/**
 * The secret Twitch signs EventSub messages with (10 to 100 ASCII characters): derived from the
 * application's client secret, so every process has it without storing another (decision 0138).
 */
function eventSubSecret(clientSecret: string): string {
  return createHmac('sha256', clientSecret).update('kura twitch eventsub stream.online').digest('hex');
}

/** Whether Twitch takes a callback under this public URL: https on port 443, as EventSub requires (decision 0138). */
function twitchTakes(publicUrl: string): boolean {
  return URL.canParse(publicUrl) && new URL(publicUrl).protocol === 'https:' && new URL(publicUrl).port === '';
}
