// Decisions: docs/decisions/0008-channels-listed-and-ordered.md, docs/decisions/0009-channel-totals-by-trigger.md
import type pg from 'pg';
import type { ChannelSummary } from '../../core/channels/channel.js';
import type { ChannelRepo } from '../../core/channels/ports.js';

const SUMMARY = `
  select c.channel_id, c.channel_name, c.finished_count, c.upcoming_count, c.all_count - c.livestream_count as failed_count,
         c.total_file_size, c.total_length, c.latest_archive_id, c.latest_archive_at, l.title as latest_title,
         exists (select 1 from follows f where f.channel_id = c.channel_id) as followed
    from channel_totals c left join livestreams l on l.id = c.latest_archive_id`;

/**
 * Followed channels with no archive nor queued stream: zero counts (failed records still counted),
 * the name on their records if they had any, else the oldest follow's.
 */
const FOLLOWED_ONLY = `
  select distinct on (f.channel_id) f.channel_id, coalesce(nullif(c.channel_name, ''), f.channel_name) as channel_name,
         0 as finished_count, 0 as upcoming_count, coalesce(c.all_count - c.livestream_count, 0) as failed_count,
         0 as total_file_size, 0 as total_length, null as latest_archive_id, null::timestamptz as latest_archive_at,
         null as latest_title, true as followed
    from follows f left join channel_totals c on c.channel_id = f.channel_id
   where f.channel_id is not null and coalesce(c.livestream_count, 0) = 0`;

interface SummaryRow {
  channel_id: string;
  channel_name: string;
  finished_count: number;
  upcoming_count: number;
  failed_count: number;
  total_file_size: number;
  total_length: number;
  latest_archive_id: string | null;
  latest_archive_at: Date | null;
  latest_title: string | null;
  followed: boolean;
}

/** Channel summaries from `channel_totals` (migration 0012), which the records' triggers keep, and the follows. */
export function createChannelRepo(pool: pg.Pool): ChannelRepo {
  return {
    async list(offset, limit) {
      const { rows } = await pool.query<SummaryRow>({
        name: 'channels-list',
        // the order of the channel_totals_listed index
        text: `${SUMMARY} where c.livestream_count > 0
               order by c.latest_archive_at desc nulls last, c.channel_id asc limit $1 offset $2`,
        values: [limit, offset],
      });
      return rows.map(toSummary);
    },

    async find(channelId) {
      const { rows } = await pool.query<SummaryRow>({ name: 'channels-find', text: `${SUMMARY} where c.channel_id = $1`, values: [channelId] });
      if (rows[0]) return toSummary(rows[0]);
      const followed = await pool.query<SummaryRow>({
        name: 'channels-find-followed',
        text: `${FOLLOWED_ONLY} and f.channel_id = $1 order by f.channel_id, f.created_at, f.id`,
        values: [channelId],
      });
      return followed.rows[0] ? toSummary(followed.rows[0]) : null;
    },

    async listFollowedOnly(offset, limit) {
      const { rows } = await pool.query<SummaryRow>({
        name: 'channels-list-followed-only',
        text: `${FOLLOWED_ONLY} order by f.channel_id, f.created_at, f.id limit $1 offset $2`,
        values: [limit, offset],
      });
      return rows.map(toSummary);
    },

    async countFollowedOnly() {
      const { rows } = await pool.query<{ count: number }>({
        name: 'channels-count-followed-only',
        text: `select count(distinct f.channel_id)::int as count from follows f
                where f.channel_id is not null
                  and not exists (select 1 from channel_totals c where c.channel_id = f.channel_id and c.livestream_count > 0)`,
      });
      return rows[0]?.count ?? 0;
    },
  };
}

function toSummary(row: SummaryRow): ChannelSummary {
  return {
    channelId: row.channel_id,
    channelName: row.channel_name,
    archives: Number(row.finished_count),
    upcoming: Number(row.upcoming_count),
    failed: Number(row.failed_count),
    totalFileSizeBytes: Number(row.total_file_size),
    totalLengthSeconds: Number(row.total_length),
    latestArchive:
      row.latest_archive_id !== null && row.latest_archive_at !== null
        ? { id: row.latest_archive_id, title: row.latest_title ?? '', scheduledStart: row.latest_archive_at }
        : null,
    followed: row.followed,
  };
}
