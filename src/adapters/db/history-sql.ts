import type { HistorySlice } from '../../core/records/ports.js';
import { RECORD_COLUMNS } from './livestream-row.js';

/**
 * The statement of one history page. Deep pages read from the other end: the last page of 100k
 * records costs an offset of 0, not 100k. `total` is the count the caller paginates against (the
 * channel's own when `channelId` is set, so the same trick holds within a channel).
 */
export function historySql(slice: HistorySlice, total: number) {
  const conditions = [...(slice.includeUnfinished ? [] : [`l.status = 'finished'`]), ...(slice.channelId === null ? [] : ['l.channel_id = $3'])];
  const where = conditions.length === 0 ? '' : `where ${conditions.join(' and ')}`;
  const remaining = total - slice.offset;
  const reversed = slice.offset > total / 2 && remaining > 0;
  const direction = (slice.sort === 'asc') !== reversed ? 'asc' : 'desc';
  const limit = reversed ? Math.min(slice.limit, remaining) : slice.limit;
  const offset = reversed ? Math.max(0, remaining - slice.limit) : slice.offset;
  return {
    name: `history-${direction}-${slice.includeUnfinished ? 'all' : 'finished'}${slice.channelId === null ? '' : '-channel'}`,
    sql: `select ${RECORD_COLUMNS} from livestreams l ${where}
          order by l.scheduled_start_at ${direction}, l.id ${direction} limit $1 offset $2`,
    params: slice.channelId === null ? [limit, offset] : [limit, offset, slice.channelId],
    reversed,
  };
}
