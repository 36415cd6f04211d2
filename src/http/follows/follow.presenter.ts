// Decisions: docs/decisions/0010-one-record-presenter-per-audience.md
import type { Follow, Sighting } from '../../core/follows/follow.js';
import { publicFollow } from '../../core/follows/public-follow.js';
import type { Audience } from '../../core/sources/public-url.js';
import type { FollowDetailJson, FollowJson, SightingJson } from './follows.schema.js';

const iso = (at: Date | null) => at?.toISOString() ?? null;

/** A follow as the API shows it, with its health at `now` (see publicFollow, which a follow event's webhook carries too). */
export function presentFollow(follow: Follow, now: Date, audience: Audience): FollowJson {
  return publicFollow(follow, now, audience);
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
