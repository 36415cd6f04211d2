import type { Livestream } from './livestream.js';
import type { LivestreamRepo, SortOrder } from './ports.js';

export const HISTORY_MAX_LIMIT = 100;
/** Deepest page served; far beyond any real archive, it bounds the offset arithmetic. */
export const HISTORY_MAX_PAGE = 10_000_000;

export interface HistoryRequest {
  page: number;
  /** Values above HISTORY_MAX_LIMIT are clamped, not refused. */
  limit: number;
  sort: SortOrder;
  unfinished: boolean;
}

/** What a history request asks when it leaves something out: the API's defaults, in one place. */
export const HISTORY_DEFAULTS = { page: 0, limit: 25, sort: 'desc', unfinished: false } as const satisfies HistoryRequest;

export interface HistoryPage {
  records: Livestream[];
  total: number;
  hasMore: boolean;
}

/** One page of the archive, newest or oldest first, with the total for pagination. */
export async function listHistory(deps: { livestreams: LivestreamRepo }, request: HistoryRequest): Promise<HistoryPage> {
  const limit = Math.min(request.limit, HISTORY_MAX_LIMIT);
  const offset = request.page * limit;
  const totals = await deps.livestreams.totals();
  const total = request.unfinished ? totals.all : totals.finished;
  const records =
    offset >= total ? [] : await deps.livestreams.listHistory({ offset, limit, sort: request.sort, includeUnfinished: request.unfinished }, total);
  return { records, total, hasMore: offset + limit < total };
}
