import type { AccessRefusal, Follow, FollowKind, MembersOnlyRule, Sighting, SightingVerdict, SignalHealth, SignalName } from '../../core/follows/follow.js';

export const FOLLOW_COLUMNS = `id, kind, url, channel_id, channel_name, title, title_include, title_exclude, members_only, quality,
  paused, created_by, created_at, queued_count::int as queued_count, last_checked_at, next_check_at, failing_since, signals, access_refused,
  retention_keep_last, retention_max_age_days, retention_max_gb`;

export interface FollowRow {
  id: string;
  kind: FollowKind;
  url: string;
  channel_id: string | null;
  channel_name: string;
  title: string | null;
  title_include: string | null;
  title_exclude: string | null;
  members_only: MembersOnlyRule;
  quality: string | null;
  paused: boolean;
  created_by: string;
  created_at: Date;
  queued_count: number;
  last_checked_at: Date | null;
  next_check_at: Date;
  failing_since: Date | null;
  signals: StoredSignal[];
  /** Migration 0020; absent in a webhook snapshot of a row from before it. */
  access_refused?: StoredAccessRefusal | null;
  /** Migration 0024; absent in a webhook snapshot of a row from before it. */
  retention_keep_last?: number | null;
  retention_max_age_days?: number | null;
  retention_max_gb?: number | null;
}

/** A members-only refusal as kept in the `access_refused` jsonb column. */
interface StoredAccessRefusal {
  error: string;
  since: string;
  probeUrl: string;
}

/** A signal's health as kept in the `signals` jsonb column: times as ISO strings. */
interface StoredSignal {
  signal: SignalName;
  lastCheckedAt: string | null;
  lastOkAt: string | null;
  lastError: string | null;
  /** Absent in rows written before it was kept. */
  lastErrorPublic?: string | null;
  lastErrorAt: string | null;
  nextCheckAt: string;
}

const date = (value: string | null): Date | null => (value === null ? null : new Date(value));

export function toFollow(row: FollowRow): Follow {
  return {
    id: row.id,
    kind: row.kind,
    url: row.url,
    channelId: row.channel_id,
    channelName: row.channel_name,
    title: row.title,
    rules: { titleInclude: row.title_include, titleExclude: row.title_exclude, membersOnly: row.members_only, quality: row.quality },
    retention: { keepLast: row.retention_keep_last ?? null, maxAgeDays: row.retention_max_age_days ?? null, maxGb: row.retention_max_gb ?? null },
    paused: row.paused,
    createdBy: row.created_by,
    createdAt: row.created_at,
    queuedCount: row.queued_count,
    lastCheckedAt: row.last_checked_at,
    nextCheckAt: row.next_check_at,
    failingSince: row.failing_since,
    signals: row.signals.map((s) => ({
      signal: s.signal,
      lastCheckedAt: date(s.lastCheckedAt),
      lastOkAt: date(s.lastOkAt),
      lastError: s.lastError,
      ...(s.lastErrorPublic === undefined ? {} : { lastErrorPublic: s.lastErrorPublic }),
      lastErrorAt: date(s.lastErrorAt),
      nextCheckAt: new Date(s.nextCheckAt),
    })),
    accessRefused: row.access_refused
      ? { error: row.access_refused.error, since: new Date(row.access_refused.since), probeUrl: row.access_refused.probeUrl }
      : null,
  };
}

/** The `access_refused` column's JSON, or null. */
export function accessRefusedJson(refusal: AccessRefusal | null): string | null {
  return refusal === null ? null : JSON.stringify(refusal);
}

const SNAPSHOT_DATES = ['created_at', 'last_checked_at', 'next_check_at', 'failing_since'] as const;

/** A follow's row as the webhook outbox kept it (jsonb: dates as text) back as the core's follow. */
export function followFromSnapshot(snapshot: Record<string, unknown>): Follow {
  const row = { ...snapshot };
  for (const column of SNAPSHOT_DATES) row[column] = typeof row[column] === 'string' ? new Date(row[column]) : null;
  return toFollow(row as unknown as FollowRow);
}

/** The `signals` column's JSON (Dates serialise as ISO strings). */
export function signalsJson(signals: readonly SignalHealth[]): string {
  return JSON.stringify(signals);
}

export interface SightingRow {
  follow_id: string;
  stream_id: string;
  title: string | null;
  verdict: SightingVerdict;
  reason: string;
  seen_at: Date;
  recheck_at: Date | null;
}

export const SIGHTING_COLUMNS = 'follow_id, stream_id, title, verdict, reason, seen_at, recheck_at';

export function toSighting(row: SightingRow): Sighting {
  return {
    followId: row.follow_id,
    streamId: row.stream_id,
    title: row.title,
    verdict: row.verdict,
    reason: row.reason,
    seenAt: row.seen_at,
    recheckAt: row.recheck_at,
  };
}
