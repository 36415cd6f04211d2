import type pg from 'pg';
import type { ChannelSummary } from '../../core/channels/channel.js';
import type { ChannelRepo } from '../../core/channels/ports.js';

const SUMMARY = `
  select c.channel_id, c.channel_name, c.finished_count, c.upcoming_count, c.all_count - c.livestream_count as failed_count,
         c.total_file_size, c.total_length, c.latest_archive_id, c.latest_archive_at, l.title as latest_title
    from channel_totals c left join livestreams l on l.id = c.latest_archive_id`;

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
}

/** Channel summaries from `channel_totals` (migration 0012), which the records' triggers keep. */
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
      return rows[0] ? toSummary(rows[0]) : null;
    },
  };
}

function toSummary(row: SummaryRow): ChannelSummary {
  return {
    channelId: row.channel_id,
    channelName: row.channel_name,
    archives: row.finished_count,
    upcoming: row.upcoming_count,
    failed: row.failed_count,
    totalFileSizeBytes: row.total_file_size,
    totalLengthSeconds: row.total_length,
    latestArchive:
      row.latest_archive_id !== null && row.latest_archive_at !== null
        ? { id: row.latest_archive_id, title: row.latest_title ?? '', scheduledStart: row.latest_archive_at }
        : null,
  };
}
