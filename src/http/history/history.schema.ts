import Type from 'typebox';
import { HISTORY_DEFAULT_LIMIT, HISTORY_MAX_LIMIT, HISTORY_MAX_PAGE } from '../../core/list-history.js';
import { LivestreamRecordSchema } from '../livestreams/record.schema.js';

export const HistoryQuerySchema = Type.Object({
  page: Type.Optional(Type.Integer({
    minimum: 0,
    maximum: HISTORY_MAX_PAGE,
    default: 0,
    description: `0-based page number, an integer from 0 to ${HISTORY_MAX_PAGE}; default 0`,
  })),
  limit: Type.Optional(Type.Integer({
    minimum: 1,
    default: HISTORY_DEFAULT_LIMIT,
    description: `records per page, an integer of 1 or more; values above ${HISTORY_MAX_LIMIT} are clamped to ${HISTORY_MAX_LIMIT}; default ${HISTORY_DEFAULT_LIMIT}`,
  })),
  sort: Type.Optional(Type.String({
    pattern: '^([aA][sS][cC]|[dD][eE][sS][cC])$',
    default: 'desc',
    description: 'asc or desc (any case) by scheduledStart, ties by id; default desc',
  })),
  unfinished: Type.Optional(
    Type.Enum(['true', 'false', '1', '0'], {
      default: 'false',
      description: 'true, false, 1 or 0: whether unfinished (upcoming, live, failed) records are included; default false',
    }),
  ),
});

export const HistoryResponseSchema = Type.Array(LivestreamRecordSchema);

export const PAGINATION_HEADERS = {
  total: 'x-kura-pagination-total',
  hasMore: 'x-kura-pagination-has-more',
} as const;
