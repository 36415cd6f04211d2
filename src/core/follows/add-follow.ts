// Decisions: docs/decisions/0015-limits-count-first.md, docs/decisions/0110-follows-policy-pacing-api.md
import { AppError } from '../errors.js';
import { mintId } from '../ids.js';
import { countAttempt, type RateLimiter } from '../rate-limit.js';
import type { CheckAddresses } from '../sources/ports.js';
import { FOLLOW_CREATION_RATE, SIGNALS_OF, type Follow, type FollowKind, type FollowRequest } from './follow.js';
import { checkRules } from './follow-rules.js';
import { changeRules, NO_LIMITS } from '../retention/retention-rules.js';
import { channelSlug, givenName } from '../records/record-names.js';
import { isYouTubeChannelId, parseFollowTarget, twitchChannelUrl, youTubeChannelUrl, type FollowTarget } from './follow-target.js';
import type { ChannelResolver, FollowRepo } from './ports.js';

/** What the instance allows a follow to name. */
export interface FollowPolicy {
  /** Holodex follows need HOLODEX_API_KEY. */
  holodex: boolean;
  /** Twitch follows need an app's credentials (KURA_TWITCH_CLIENT_ID, KURA_TWITCH_CLIENT_SECRET). */
  twitch: boolean;
  /** Why an HLS endpoint's URL is refused (a private address without KURA_ALLOW_PRIVATE_SOURCES), or null. */
  refuseUrl(url: string): string | null;
  /** Why an HLS endpoint's host name is refused for where it resolves now (checked again at every connection), or null. */
  checkAddresses: CheckAddresses;
}

const invalid = (detail: string) => new AppError('invalid', 'invalid_follow', detail);

/** Why a Twitch follow is refused on an instance without Twitch credentials, and how to get them. */
export const TWITCH_CREDENTIALS =
  'Twitch follows ask Twitch’s API, which needs an application’s credentials: register one at https://dev.twitch.tv/console/apps ' +
  '(any OAuth redirect URL, category "Other"), then set KURA_TWITCH_CLIENT_ID and KURA_TWITCH_CLIENT_SECRET and restart Kura.';

/**
 * Creates a follow: parses the URL into its kind (`invalid_follow` with the reason for anything
 * else, for an HLS endpoint whose name resolves to a non-public address (the admin is told which),
 * or for a rule that is not a valid regular expression), checks its retention limits (`invalid_retention`), resolves a YouTube handle once to
 * its channel id (`invalid_follow` when it cannot be), and stores it with every signal due now.
 * With a `rateLimiter` (an API caller; the operator's CLI has none), every attempt counts against
 * FOLLOW_CREATION_RATE per `createdBy` first. Throws `already_followed` for a source already
 * followed, `too_many_requests`.
 */
export async function addFollow(
  deps: { follows: FollowRepo; resolver: ChannelResolver; policy: FollowPolicy; rateLimiter?: RateLimiter },
  request: { follow: FollowRequest; createdBy: string; now: Date },
): Promise<Follow> {
  const { follow, createdBy, now } = request;
  if (deps.rateLimiter) await countAttempt({ rateLimiter: deps.rateLimiter }, 'follow-create', createdBy, FOLLOW_CREATION_RATE, 'new follows');
  const rules = checkRules({
    titleInclude: follow.titleInclude ?? null,
    titleExclude: follow.titleExclude ?? null,
    membersOnly: follow.membersOnly ?? 'skip',
    quality: follow.quality ?? null,
  });
  const retention = changeRules(NO_LIMITS, { keepLast: follow.keepLast ?? null, maxAgeDays: follow.maxAgeDays ?? null, maxGb: follow.maxGb ?? null });
  const source = await identify(deps, parseFollowTarget(follow.url), follow.channel);
  return deps.follows.add({
    id: mintId(),
    ...source,
    // names as a person gives them are kept as givenName makes them (nothing visible left: none given)
    title: (follow.title === undefined ? '' : givenName(follow.title)) || null,
    rules,
    retention,
    createdBy,
    createdAt: now,
    signals: SIGNALS_OF[source.kind].map((signal) => ({ signal, lastCheckedAt: null, lastOkAt: null, lastError: null, lastErrorAt: null, nextCheckAt: now })),
  });
}

interface Identity {
  kind: FollowKind;
  url: string;
  channelId: string | null;
  channelName: string;
}

async function identify(deps: { resolver: ChannelResolver; policy: FollowPolicy }, target: FollowTarget, channel: string | undefined): Promise<Identity> {
  const name = (channel === undefined ? '' : givenName(channel)) || undefined;
  switch (target.kind) {
    case 'youtube_channel': {
      const found = await deps.resolver.resolveYouTube(target.channel).catch((error: Error) => {
        throw invalid(`Kura could not find the YouTube channel ${target.channel}: ${error.message}`);
      });
      if (!isYouTubeChannelId(found.channelId)) throw invalid(`${target.channel} resolved to "${found.channelId}", which is not a YouTube channel id.`);
      return { kind: target.kind, url: youTubeChannelUrl(found.channelId), channelId: found.channelId, channelName: name ?? found.channelName };
    }
    case 'holodex':
      if (!deps.policy.holodex) throw invalid('Holodex follows need a Holodex API key: set HOLODEX_API_KEY.');
      return { kind: target.kind, url: target.url, channelId: null, channelName: name ?? target.name };
    case 'hls_endpoint': {
      const refusal = deps.policy.refuseUrl(target.url);
      if (refusal !== null) throw invalid(`Kura will not follow ${target.url}: ${refusal}`);
      const pointsAt = await deps.policy.checkAddresses(target.url);
      if (pointsAt !== null) throw invalid(`Kura will not follow ${target.url}: ${pointsAt.detail}`);
      const channelName = name ?? target.host;
      return { kind: target.kind, url: target.url, channelId: channelSlug(channelName), channelName };
    }
    case 'twitch_channel': {
      if (!deps.policy.twitch) throw invalid(TWITCH_CREDENTIALS);
      const found = await deps.resolver.resolveTwitch(target.login).catch((error: Error) => {
        throw invalid(`Kura could not find the Twitch channel ${target.login}: ${error.message}`);
      });
      return { kind: target.kind, url: twitchChannelUrl(found.login), channelId: `twitch:${found.login}`, channelName: name ?? found.channelName };
    }
  }
}
