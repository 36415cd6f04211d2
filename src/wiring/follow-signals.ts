import { hostRefusal } from '../adapters/outbound/address-policy.js';
import type { Config } from '../config.js';
import type { FollowPolicy } from '../core/follows/add-follow.js';
import type { SignalName } from '../core/follows/follow.js';
import type { ChannelResolver, FollowSignal } from '../core/follows/ports.js';
import type { Sources } from './sources.js';

/**
 * The signals a worker's follows are checked with. PLACEHOLDER of the follow-core branch: each
 * signal throws "not wired" (so every check records a failing signal); the real adapters are
 * wired here at merge.
 */
export function createFollowSignals(config: Config, sources: Sources): Record<SignalName, FollowSignal> {
  void config;
  void sources;
  const notWired = (name: SignalName): FollowSignal => ({
    name,
    host: () => name,
    look: () => Promise.reject(new Error(`the ${name} signal is not wired in this build`)),
  });
  return { feed: notWired('feed'), tabs: notWired('tabs'), holodex: notWired('holodex'), playlist: notWired('playlist') };
}

/** How `kura follow add` and `POST /api/follows` resolve a YouTube handle. PLACEHOLDER: throws "not wired" until the yt-dlp resolver is wired here. */
export function createChannelResolver(config: Config): ChannelResolver {
  void config;
  return { resolveYouTube: () => Promise.reject(new Error('the YouTube channel resolver is not wired in this build')) };
}

/** What this instance lets a follow name: Holodex with an API key; HLS endpoints on private addresses only with KURA_ALLOW_PRIVATE_SOURCES. */
export function followPolicy(config: Pick<Config, 'allowPrivateSources' | 'follow'>): FollowPolicy {
  return {
    holodex: config.follow.holodexApiKey !== undefined,
    refuseUrl: (url) => (config.allowPrivateSources ? null : hostRefusal(new URL(url).hostname)),
  };
}
