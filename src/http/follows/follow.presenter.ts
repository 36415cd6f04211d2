import { healthOf, type Follow, type Sighting, type SignalHealth } from '../../core/follows/follow.js';
import { redactUrlsIn, urlFor, type Audience } from '../../core/sources/public-url.js';
import type { FollowDetailJson, FollowJson, SightingJson } from './follows.schema.js';

const iso = (at: Date | null) => at?.toISOString() ?? null;

/**
 * A follow as the API shows it, with its health at `now`: to the admin whole; to anyone else
 * with its URL redacted (no user name or password, query values masked) and its signals' errors
 * in the public's words (no URL secrets, no address a name resolves to).
 */
export function presentFollow(follow: Follow, now: Date, audience: Audience): FollowJson {
  return {
    id: follow.id,
    kind: follow.kind,
    url: urlFor(audience, follow.url),
    channelId: follow.channelId,
    channelName: follow.channelName,
    title: follow.title,
    rules: { ...follow.rules },
    paused: follow.paused,
    createdBy: follow.createdBy,
    createdAt: follow.createdAt.toISOString(),
    health: healthOf(follow, now),
    queued: follow.queuedCount,
    lastCheckedAt: iso(follow.lastCheckedAt),
    nextCheckAt: follow.nextCheckAt.toISOString(),
    failingSince: iso(follow.failingSince),
    signals: follow.signals.map((s) => ({
      signal: s.signal,
      lastCheckedAt: iso(s.lastCheckedAt),
      lastOkAt: iso(s.lastOkAt),
      lastError: errorFor(audience, s),
      lastErrorAt: iso(s.lastErrorAt),
      nextCheckAt: s.nextCheckAt.toISOString(),
    })),
  };
}

function errorFor(audience: Audience, signal: SignalHealth): string | null {
  if (audience === 'admin' || signal.lastError === null) return signal.lastError;
  return signal.lastErrorPublic ?? redactUrlsIn(signal.lastError);
}

function presentSighting(sighting: Sighting): SightingJson {
  return {
    streamId: sighting.streamId,
    title: sighting.title,
    verdict: sighting.verdict,
    reason: sighting.reason,
    seenAt: sighting.seenAt.toISOString(),
    recheckAt: iso(sighting.recheckAt),
  };
}

/** A follow with its latest decisions (GET /api/follows/{id}). */
export function presentFollowDetail(follow: Follow, recent: Sighting[], now: Date, audience: Audience): FollowDetailJson {
  return { ...presentFollow(follow, now, audience), recent: recent.map(presentSighting) };
}
