import { healthOf, type Follow, type Sighting } from '../../core/follows/follow.js';
import type { FollowDetailJson, FollowJson, SightingJson } from './follows.schema.js';

const iso = (at: Date | null) => at?.toISOString() ?? null;

/** A follow as the API shows it, with its health at `now`. */
export function presentFollow(follow: Follow, now: Date): FollowJson {
  return {
    id: follow.id,
    kind: follow.kind,
    url: follow.url,
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
      lastError: s.lastError,
      lastErrorAt: iso(s.lastErrorAt),
      nextCheckAt: s.nextCheckAt.toISOString(),
    })),
  };
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
export function presentFollowDetail(follow: Follow, recent: Sighting[], now: Date): FollowDetailJson {
  return { ...presentFollow(follow, now), recent: recent.map(presentSighting) };
}
