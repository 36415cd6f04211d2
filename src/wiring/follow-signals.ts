import { createOutboundClient, type OutboundOptions } from '../adapters/outbound/outbound-client.js';
import { createHelixClient, type HelixClient } from '../adapters/twitch/helix-client.js';
import { createTwitchHelixSignal } from '../adapters/follows/twitch-helix-signal.js';
import { createHlsEndpointSignal } from '../adapters/follows/hls-endpoint-signal.js';
import { createHolodexSignal } from '../adapters/follows/holodex-signal.js';
import { createYouTubeChannelResolver } from '../adapters/follows/youtube-channel-resolver.js';
import { createYouTubeFeedSignal } from '../adapters/follows/youtube-feed-signal.js';
import { createYouTubeTabsSignal } from '../adapters/follows/youtube-tabs-signal.js';
import type { Config } from '../config/config.js';
import { TWITCH_CREDENTIALS, type FollowPolicy } from '../core/follows/add-follow.js';
import type { SignalName } from '../core/follows/follow.js';
import { twitchLoginOf } from '../core/follows/follow-target.js';
import type { ChannelResolver, FollowRepo, FollowSignal } from '../core/follows/ports.js';
import { targetChecks, ytdlpOf, type Sources } from './sources.js';
import type { EventSubDeps } from '../http/twitch/eventsub.routes.js';
import type { EventSubSubscribing } from '../jobs/loops/twitch-eventsub.js';

/** The signals a worker's follows are checked with, each going out through this process's SSRF-safe fetcher or client, or yt-dlp. */
export function createFollowSignals(config: Config, sources: Sources, follows: Pick<FollowRepo, 'unpausedUrls'>): Record<SignalName, FollowSignal> {
  const { fetcher } = sources;
  const { follow } = config;
  return {
    feed: createYouTubeFeedSignal({ fetcher, feedUrl: follow.youtubeFeedUrl }),
    tabs: createYouTubeTabsSignal({ ytdlp: ytdlpOf(config) }),
    // without HOLODEX_API_KEY no Holodex follow can be created (followPolicy), so this never asks
    holodex: createHolodexSignal({ fetcher, baseUrl: follow.holodexUrl, apiKey: follow.holodexApiKey ?? '' }),
    playlist: createHlsEndpointSignal({ fetcher }),
    helix: createTwitchHelixSignal({
      helix: helixOf(config),
      withoutClient: TWITCH_CREDENTIALS,
      followed: () => follows.unpausedUrls('twitch_channel'),
      freshMs: (follow.intervals.helix * 1000) / 2,
    }),
  };
}

/** Twitch's API as this instance's application (KURA_TWITCH_CLIENT_ID and _SECRET), through the SSRF-safe client; null without them. */
function helixOf(config: Pick<Config, 'allowPrivateSources' | 'follow'>): HelixClient | null {
  const app = config.follow.twitch;
  return app === undefined ? null : createHelixClient(app, { outbound: createOutboundClient({ allowPrivate: config.allowPrivateSources }) });
}

/** The EventSub callback's parts for the api (decision 0138): none where EventSub is off. */
export function eventSubOf(config: Pick<Config, 'follow'>, follows: EventSubDeps['follows']): { twitchEventSub?: EventSubDeps } {
  const eventSub = config.follow.twitch?.eventSub;
  return eventSub == null ? {} : { twitchEventSub: { follows, secret: eventSub.secret } };
}

/** How a worker subscribes the followed Twitch channels to `stream.online` (decision 0138); null where EventSub is off. */
export function createEventSubSubscriber(
  config: Pick<Config, 'allowPrivateSources' | 'follow'>,
  follows: Pick<FollowRepo, 'unpausedUrls'>,
): EventSubSubscribing | null {
  const eventSub = config.follow.twitch?.eventSub;
  const helix = helixOf(config);
  if (eventSub == null || helix === null) return null;
  const ids = new Map<string, string>(); // a login's user id never changes
  return {
    followed: async () => (await follows.unpausedUrls('twitch_channel')).flatMap((url) => twitchLoginOf(url) ?? []),
    async subscribe(login) {
      const id = ids.get(login) ?? (await helix.user(login))?.id;
      if (id === undefined) return 'no_channel';
      ids.set(login, id);
      return helix.subscribeOnline(id, eventSub.callbackUrl, eventSub.secret);
    },
  };
}

/** How `kura follow add` and `POST /api/follows` resolve a YouTube channel id or handle, or a Twitch login (once, at creation). */
export function createChannelResolver(config: Pick<Config, 'ytdlpPath' | 'ytdlpCookies' | 'systemDir' | 'allowPrivateSources' | 'follow'>): ChannelResolver {
  const helix = helixOf(config);
  return {
    ...createYouTubeChannelResolver({ ytdlp: ytdlpOf(config) }),
    async resolveTwitch(login) {
      if (helix === null) throw new Error(TWITCH_CREDENTIALS);
      const found = await helix.user(login);
      if (found === null) throw new Error(`Twitch has no channel named ${login}`);
      return { login: found.login, channelName: found.displayName };
    },
  };
}

/**
 * What this instance lets a follow name: Holodex with an API key; HLS endpoints on private
 * addresses (named, or resolved to by `resolve`, the system resolver by default) only with KURA_ALLOW_PRIVATE_SOURCES.
 */
export function followPolicy(config: Pick<Config, 'allowPrivateSources' | 'follow'>, resolve?: OutboundOptions['resolve']): FollowPolicy {
  return { holodex: config.follow.holodexApiKey !== undefined, twitch: config.follow.twitch !== undefined, ...targetChecks(config, resolve) };
}
