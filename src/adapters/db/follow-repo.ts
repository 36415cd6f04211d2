// Decisions: docs/decisions/0054-follows-claims-and-sightings.md, docs/decisions/0057-webhook-events-with-the-change.md
import type pg from 'pg';
import { AppError } from '../../core/errors.js';
import type { FollowRepo } from '../../core/follows/ports.js';
import { earliestCheck } from '../../core/follows/check-changes.js';
import { createFollowClaims } from './follow-claims.js';
import { accessRefusedJson, FOLLOW_COLUMNS, SIGHTING_COLUMNS, signalsJson, toFollow, toSighting, type FollowRow, type SightingRow } from './follow-row.js';

/** PostgreSQL's unique_violation. */
const UNIQUE_VIOLATION = '23505';

/** Follows and their sightings in PostgreSQL (migration 0013). */
export function createFollowRepo(pool: pg.Pool): FollowRepo {
  return { ...createFollowClaims(pool), ...followRows(pool), ...followChanges(pool), ...followChecks(pool) };
}

/** The follows themselves: added, listed, found, changed, removed. */
function followRows(pool: pg.Pool): Pick<FollowRepo, 'add' | 'list' | 'find' | 'remove' | 'unpausedUrls'> {
  return {
    async add(follow) {
      try {
        const added = await oneFollow(
          pool,
          `insert into follows (id, kind, url, channel_id, channel_name, title, title_include, title_exclude, members_only, quality,
                                created_by, created_at, next_check_at, signals, retention_keep_last, retention_max_age_days, retention_max_gb)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14::jsonb, $15, $16, $17) returning ${FOLLOW_COLUMNS}`,
          [
            follow.id,
            follow.kind,
            follow.url,
            follow.channelId,
            follow.channelName,
            follow.title,
            follow.rules.titleInclude,
            follow.rules.titleExclude,
            follow.rules.membersOnly,
            follow.rules.quality,
            follow.createdBy,
            follow.createdAt,
            earliestCheck(follow.signals, follow.createdAt),
            signalsJson(follow.signals),
            follow.retention?.keepLast ?? null,
            follow.retention?.maxAgeDays ?? null,
            follow.retention?.maxGb ?? null,
          ],
        );
        return added!;
      } catch (error) {
        if ((error as { code?: string }).code === UNIQUE_VIOLATION) {
          throw new AppError('conflict', 'already_followed', `${follow.url} is followed already.`);
        }
        throw error;
      }
    },

    async list() {
      const { rows } = await pool.query<FollowRow>(`select ${FOLLOW_COLUMNS} from follows order by created_at, id`);
      return rows.map(toFollow);
    },

    async unpausedUrls(kind) {
      const { rows } = await pool.query<{ url: string }>('select url from follows where kind = $1 and not paused order by url', [kind]);
      return rows.map((row) => row.url);
    },

    find: (id) => oneFollow(pool, `select ${FOLLOW_COLUMNS} from follows where id = $1`, [id]),

    async remove(id) {
      const result = await pool.query('delete from follows where id = $1', [id]);
      return result.rowCount === 1;
    },
  };
}

/** An edit of a follow: its rules, names, pause and next check. */
function followChanges(pool: pg.Pool): Pick<FollowRepo, 'update'> {
  return {
    update(id, change) {
      const rules = change.rules;
      // a new next check (resuming) brings every signal due later forward to it
      return oneFollow(
        pool,
        `update follows set
           channel_name = coalesce($2, channel_name), title = case when $3 then $4 else title end,
           paused = coalesce($5, paused),
           title_include = case when $6 then $7 else title_include end, title_exclude = case when $6 then $8 else title_exclude end,
           members_only = case when $6 then $9 else members_only end, quality = case when $6 then $10 else quality end,
           next_check_at = coalesce($11, next_check_at),
           retention_keep_last = case when $13 then $14::integer else retention_keep_last end,
           retention_max_age_days = case when $13 then $15::integer else retention_max_age_days end,
           retention_max_gb = case when $13 then $16::double precision else retention_max_gb end,
           signals = case when $11::timestamptz is null then signals else coalesce((
             select jsonb_agg(case when (s->>'nextCheckAt')::timestamptz > $11 then jsonb_set(s, '{nextCheckAt}', to_jsonb($12::text)) else s end)
               from jsonb_array_elements(signals) s), '[]'::jsonb) end
         where id = $1 returning ${FOLLOW_COLUMNS}`,
        [
          id,
          change.channelName ?? null,
          change.title !== undefined,
          change.title ?? null,
          change.paused ?? null,
          rules !== undefined,
          rules?.titleInclude ?? null,
          rules?.titleExclude ?? null,
          rules?.membersOnly ?? 'skip',
          rules?.quality ?? null,
          change.nextCheckAt ?? null,
          change.nextCheckAt?.toISOString() ?? null,
          change.retention !== undefined,
          change.retention?.keepLast ?? null,
          change.retention?.maxAgeDays ?? null,
          change.retention?.maxGb ?? null,
        ],
      );
    },
  };
}

/** What checks leave: their outcome, and the sightings of the streams they decided. */
function followChecks(pool: pg.Pool): Pick<FollowRepo, 'recordCheck' | 'sightings' | 'recordSightings' | 'recentSightings'> {
  return {
    async recordCheck(id, outcome, dueBefore) {
      // one statement: the outcome and its event (migration 0016) commit together. A next check
      // brought before the claim's while the check ran (a resume) is kept, for the follow and each signal.
      await pool.query(
        `with now_due as (select next_check_at as due from follows where id = $1 for update),
         checked as (
           update follows set last_checked_at = $3, failing_since = $4, queued_count = queued_count + $5, access_refused = $9::jsonb,
                  next_check_at = case when now_due.due < $8 then least(now_due.due, $6) else $6 end,
                  signals = case when now_due.due < $8 then coalesce((
                    select jsonb_agg(case when (s->>'nextCheckAt')::timestamptz > now_due.due then jsonb_set(s, '{nextCheckAt}', to_jsonb(now_due.due)) else s end)
                      from jsonb_array_elements($2::jsonb) s), '[]'::jsonb) else $2::jsonb end
             from now_due where id = $1 returning follows)
         select enqueue_follow_event('follow.unhealthy', checked.follows) from checked where $7`,
        [
          id,
          signalsJson(outcome.signals),
          outcome.checkedAt,
          outcome.failingSince,
          outcome.queued,
          earliestCheck(outcome.signals, outcome.checkedAt),
          outcome.becameUnhealthy,
          dueBefore,
          accessRefusedJson(outcome.accessRefused),
        ],
      );
    },

    async sightings(followId, streamIds) {
      if (streamIds.length === 0) return [];
      const { rows } = await pool.query<SightingRow>(`select ${SIGHTING_COLUMNS} from follow_sightings where follow_id = $1 and stream_id = any($2::text[])`, [
        followId,
        streamIds,
      ]);
      return rows.map(toSighting);
    },

    async recordSightings(sightings) {
      if (sightings.length === 0) return;
      await pool.query(
        `insert into follow_sightings (${SIGHTING_COLUMNS})
         select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[], $7::timestamptz[])
         on conflict (follow_id, stream_id) do update set title = excluded.title, verdict = excluded.verdict,
           reason = excluded.reason, seen_at = excluded.seen_at, recheck_at = excluded.recheck_at`,
        [
          sightings.map((s) => s.followId),
          sightings.map((s) => s.streamId),
          sightings.map((s) => s.title),
          sightings.map((s) => s.verdict),
          sightings.map((s) => s.reason),
          sightings.map((s) => s.seenAt),
          sightings.map((s) => s.recheckAt),
        ],
      );
    },

    async recentSightings(followId, limit) {
      const { rows } = await pool.query<SightingRow>(
        `select ${SIGHTING_COLUMNS} from follow_sightings where follow_id = $1 order by seen_at desc, stream_id limit $2`,
        [followId, limit],
      );
      return rows.map(toSighting);
    },
  };
}

/** The one follow a statement returns, or null. */
async function oneFollow(pool: pg.Pool, text: string, values: unknown[]) {
  const { rows } = await pool.query<FollowRow>(text, values);
  return rows[0] ? toFollow(rows[0]) : null;
}
