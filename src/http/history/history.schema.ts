import Type, { type Static } from 'typebox';
import { HISTORY_DEFAULTS, HISTORY_MAX_LIMIT, HISTORY_MAX_PAGE, type HistoryRequest } from '../../core/records/list-history.js';
import { channelIdSchema } from '../channels/channel-id.schema.js';
import { LivestreamRecordSchema } from '../livestreams/record.schema.js';

const { page, limit, sort, unfinished } = HISTORY_DEFAULTS;

/** `page` and `limit`, as the history and the channel list take them. */
export const PageQueryProperties = {
  page: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: HISTORY_MAX_PAGE,
      default: page,
      description: `0-based page number, an integer from 0 to ${HISTORY_MAX_PAGE}; default ${page}`,
    }),
  ),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      default: limit,
      description: `records per page, an integer of 1 or more; values above ${HISTORY_MAX_LIMIT} are clamped to ${HISTORY_MAX_LIMIT}; default ${limit}`,
    }),
  ),
};

/** The query string of `GET /api/history`: a page of the archive, its order, whether unfinished records count, one channel. */
export const HistoryQuerySchema = Type.Object({
  ...PageQueryProperties,
  sort: Type.Optional(
    Type.String({
      pattern: '^([aA][sS][cC]|[dD][eE][sS][cC])$',
      default: sort,
      description: `asc or desc (any case) by scheduledStart, ties by id; default ${sort}`,
    }),
  ),
  unfinished: Type.Optional(
    Type.Enum(['true', 'false', '1', '0'], {
      default: String(unfinished),
      description: `true, false, 1 or 0: whether unfinished (upcoming, live, failed) records are included; default ${unfinished}`,
    }),
  ),
  channelId: Type.Optional(channelIdSchema("only this channel's records")),
});
/** The query string of `GET /api/history` as validated, before HISTORY_DEFAULTS fill it in (see toHistoryRequest). */
export type HistoryQueryString = Static<typeof HistoryQuerySchema>;

/** The query as the use case takes it, HISTORY_DEFAULTS filling what it leaves out. */
export function toHistoryRequest(query: HistoryQueryString): HistoryRequest {
  return {
    page: query.page ?? page,
    limit: query.limit ?? limit,
    sort: query.sort === undefined ? sort : query.sort.toLowerCase() === 'asc' ? 'asc' : 'desc',
    unfinished: query.unfinished === undefined ? unfinished : query.unfinished === 'true' || query.unfinished === '1',
    channelId: query.channelId ?? null,
  };
}

/** A history page: the records, as presented. */
export const HistoryResponseSchema = Type.Array(LivestreamRecordSchema);
