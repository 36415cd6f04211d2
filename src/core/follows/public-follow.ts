import type { RetentionRules } from '../retention/retention-rules.js';
import { redactUrlsIn, urlFor, type Audience } from '../sources/public-url.js';
import { healthOf, type Follow, type FollowHealth, type FollowKind, type FollowRules, type SignalHealth, type SignalName } from './follow.js';

/** One signal of a follow as Kura shows it: times ISO 8601 (UTC). */
export interface PublicSignal {
  signal: SignalName;
  lastCheckedAt: string | null;
  lastOkAt: string | null;
  lastError: string | null;
  lastErrorAt: string | null;
  nextCheckAt: string;
}

/**
 * A follow as Kura shows it to the world: as /api/follows answers it (FollowSchema in
 * src/http/follows/follows.schema.ts describes it) and as a follow event's webhook carries it.
 */
export interface PublicFollow {
  id: string;
  kind: FollowKind;
  url: string;
  channelId: string | null;
  channelName: string;
  title: string | null;
  rules: FollowRules;
  /** How many of its archives are kept (0077); null limits: its channel's, else the instance's. */
  retention: RetentionRules;
  paused: boolean;
  createdBy: string;
  createdAt: string;
  health: FollowHealth;
  queued: number;
  lastCheckedAt: string | null;
  nextCheckAt: string;
  failingSince: string | null;
  signals: PublicSignal[];
  /** Why the cookies no longer give access to the members-only streams it includes (the follow is failing for it); null: no such refusal. */
  accessError: string | null;
}

const iso = (at: Date | null) => at?.toISOString() ?? null;

/**
 * A follow with its health at `now`: to the admin whole; to anyone else with its URL redacted (no
 * user name or password, query values masked) and its signals' errors in the public's words (no
 * URL secrets, no address a name resolves to). The API's presenter and the webhook body both call this.
 */
export function publicFollow(follow: Follow, now: Date, audience: Audience): PublicFollow {
  return {
    id: follow.id,
    kind: follow.kind,
    url: urlFor(audience, follow.url),
    channelId: follow.channelId,
    channelName: follow.channelName,
    title: follow.title,
    rules: { ...follow.rules },
    retention: { ...follow.retention },
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
    accessError: follow.accessRefused === null ? null : audience === 'admin' ? follow.accessRefused.error : redactUrlsIn(follow.accessRefused.error),
  };
}

function errorFor(audience: Audience, signal: SignalHealth): string | null {
  if (audience === 'admin' || signal.lastError === null) return signal.lastError;
  return signal.lastErrorPublic ?? redactUrlsIn(signal.lastError);
}
