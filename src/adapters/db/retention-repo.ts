// Decisions: docs/decisions/0077-retention.md
import type pg from 'pg';
import type { NamedRules, RetentionCandidate } from '../../core/retention/plan-retention.js';
import type { RetentionRepo } from '../../core/retention/ports.js';
import type { RetentionRules } from '../../core/retention/retention-rules.js';
import type { LivestreamStatus } from '../../core/vocabulary.js';

interface CandidateRow {
  id: string;
  title: string;
  status: LivestreamStatus;
  channel_id: string;
  follow_id: string | null;
  pinned: boolean;
  taken_down: boolean;
  size_bytes: string;
  ended_at: Date;
}

interface RulesRow {
  id: string;
  name: string;
  keep_last: number | null;
  max_age_days: number | null;
  max_gb: number | null;
}

const rulesOf = (row: Pick<RulesRow, 'keep_last' | 'max_age_days' | 'max_gb'>): RetentionRules => ({
  keepLast: row.keep_last,
  maxAgeDays: row.max_age_days,
  maxGb: row.max_gb,
});

/** Retention's reads and writes in PostgreSQL (migration 0024): follows' and channels' rules, pins, removals marked. */
export function createRetentionRepo(pool: pg.Pool): RetentionRepo {
  const named = (rows: RulesRow[], kind: string) =>
    new Map<string, NamedRules>(rows.map((row) => [row.id, { name: `${kind} ${row.name}`, rules: rulesOf(row) }]));
  return {
    async candidates() {
      // the follow that queued it: its first follow/… submitter
      const { rows } = await pool.query<CandidateRow>(
        `select l.id, l.title, l.status, l.channel_id, l.pinned, l.takedown_requested_at is not null as taken_down,
                coalesce(l.file_size_bytes, 0) as size_bytes, coalesce(l.ended_at, l.created_at) as ended_at,
                (select s.user_id from livestream_submitters s where s.livestream_id = l.id and s.provider = 'follow' order by s.id limit 1) as follow_id
           from livestreams l where l.status = 'finished'`,
      );
      return rows.map((row): RetentionCandidate => ({
        id: row.id,
        title: row.title,
        status: row.status,
        channelId: row.channel_id,
        followId: row.follow_id,
        pinned: row.pinned,
        takenDown: row.taken_down,
        sizeBytes: Number(row.size_bytes),
        endedAt: row.ended_at,
      }));
    },

    async ruleSets() {
      const [follows, channels] = await Promise.all([
        pool.query<RulesRow>(
          `select id, channel_name as name, retention_keep_last as keep_last, retention_max_age_days as max_age_days, retention_max_gb as max_gb from follows`,
        ),
        pool.query<RulesRow>(
          `select r.channel_id as id, r.keep_last, r.max_age_days, r.max_gb,
                  coalesce((select l.channel_name from livestreams l where l.channel_id = r.channel_id order by l.created_at desc limit 1), r.channel_id) as name
             from channel_retention r`,
        ),
      ]);
      return { follows: named(follows.rows, 'follow'), channels: named(channels.rows, 'channel') };
    },

    async channelRules(channelId) {
      const { rows } = await pool.query<RulesRow>('select keep_last, max_age_days, max_gb from channel_retention where channel_id = $1', [channelId]);
      return rows[0] === undefined ? null : rulesOf(rows[0]);
    },

    async setChannelRules(channelId, rules, by) {
      await pool.query(
        `insert into channel_retention (channel_id, keep_last, max_age_days, max_gb, updated_by, updated_at) values ($1, $2, $3, $4, $5, $6)
         on conflict (channel_id) do update set keep_last = $2, max_age_days = $3, max_gb = $4, updated_by = $5, updated_at = $6`,
        [channelId, rules.keepLast, rules.maxAgeDays, rules.maxGb, by.admin, by.at],
      );
    },

    async markForRemoval(id, admin, reason) {
      const result = await pool.query(
        `update livestreams set takedown_admin = $2, takedown_reason = $3, takedown_requested_at = now()
          where id = $1 and status = 'finished' and not pinned and takedown_requested_at is null`,
        [id, admin, reason],
      );
      return result.rowCount === 1;
    },

    async pendingRemovals(admin) {
      const { rows } = await pool.query<{ id: string }>(
        'select id from livestreams where takedown_requested_at is not null and takedown_admin = $1 order by takedown_requested_at, id',
        [admin],
      );
      return rows.map((row) => row.id);
    },

    async setPinned(id, pinned) {
      const result = await pool.query('update livestreams set pinned = $2 where id = $1', [id, pinned]);
      return result.rowCount === 1;
    },
  };
}
