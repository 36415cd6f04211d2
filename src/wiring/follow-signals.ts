import type { OutboundOptions } from '../adapters/outbound/outbound-client.js';
import { createHlsEndpointSignal } from '../adapters/follows/hls-endpoint-signal.js';
import { createHolodexSignal } from '../adapters/follows/holodex-signal.js';
import { createYouTubeChannelResolver } from '../adapters/follows/youtube-channel-resolver.js';
import { createYouTubeFeedSignal } from '../adapters/follows/youtube-feed-signal.js';
import { createYouTubeTabsSignal } from '../adapters/follows/youtube-tabs-signal.js';
import type { Config } from '../config/config.js';
import type { FollowPolicy } from '../core/follows/add-follow.js';
import type { SignalName } from '../core/follows/follow.js';
import type { ChannelResolver, FollowSignal } from '../core/follows/ports.js';
import { targetChecks, ytdlpOf, type Sources } from './sources.js';

/** The signals a worker's follows are checked with, each going out through this process's SSRF-safe fetcher or yt-dlp. */
export function createFollowSignals(config: Config, sources: Sources): Record<SignalName, FollowSignal> {
  const { fetcher } = sources;
  const { follow } = config;
  return {
    feed: createYouTubeFeedSignal({ fetcher, feedUrl: follow.youtubeFeedUrl }),
    tabs: createYouTubeTabsSignal({ ytdlp: ytdlpOf(config) }),
    // without HOLODEX_API_KEY no Holodex follow can be created (followPolicy), so this never asks
    holodex: createHolodexSignal({ fetcher, baseUrl: follow.holodexUrl, apiKey: follow.holodexApiKey ?? '' }),
    playlist: createHlsEndpointSignal({ fetcher }),
  };
}

/** How `kura follow add` and `POST /api/follows` resolve a YouTube channel id or handle (once, at creation). */
export function createChannelResolver(config: Pick<Config, 'ytdlpPath' | 'ytdlpCookies' | 'systemDir'>): ChannelResolver {
  return createYouTubeChannelResolver({ ytdlp: ytdlpOf(config) });
}

/**
 * What this instance lets a follow name: Holodex with an API key; HLS endpoints on private
 * addresses (named, or resolved to by `resolve`, the system resolver by default) only with KURA_ALLOW_PRIVATE_SOURCES.
 */
export function followPolicy(config: Pick<Config, 'allowPrivateSources' | 'follow'>, resolve?: OutboundOptions['resolve']): FollowPolicy {
  return { holodex: config.follow.holodexApiKey !== undefined, ...targetChecks(config, resolve) };
}
