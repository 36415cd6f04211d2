import type { HistoryQuery } from '../../core/livestream/ports.js';
import { RECORD_COLUMNS } from './livestream-row.js';

/**
 * The statement of one history page. Deep pages read from the other end: the last page of 100k
 * records costs an offset of 0, not 100k. `total` is the count the caller paginates against (the
 * channel's own when `channelId` is set, so the same trick holds within a channel).
 */
export function historySql(query: HistoryQuery, total: number) {
  const conditions = [...(query.includeUnfinished ? [] : [`l.status = 'finished'`]), ...(query.channelId === null ? [] : ['l.channel_id = $3'])];
  const where = conditions.length === 0 ? '' : `where ${conditions.join(' and ')}`;
  const remaining = total - query.offset;
  const reversed = query.offset > total / 2 && remaining > 0;
  const direction = (query.sort === 'asc') !== reversed ? 'asc' : 'desc';
  const limit = reversed ? Math.min(query.limit, remaining) : query.limit;
  const offset = reversed ? Math.max(0, remaining - query.limit) : query.offset;
  return {
    name: `history-${direction}-${query.includeUnfinished ? 'all' : 'finished'}${query.channelId === null ? '' : '-channel'}`,
    sql: `select ${RECORD_COLUMNS} from livestreams l ${where}
          order by l.scheduled_start_at ${direction}, l.id ${direction} limit $1 offset $2`,
    params: query.channelId === null ? [limit, offset] : [limit, offset, query.channelId],
    reversed,
  };
}
