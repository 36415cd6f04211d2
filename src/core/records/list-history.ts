// Decisions: docs/decisions/0004-route-schemas-define-the-api.md, docs/decisions/0006-history-queue-and-stats.md
import type { Livestream } from './livestream.js';
import type { LivestreamRepo, SortOrder } from './ports.js';

/** The most records one page holds. */
export const HISTORY_MAX_LIMIT = 100;
/** Deepest page served; far beyond any real archive, it bounds the offset arithmetic. */
export const HISTORY_MAX_PAGE = 10_000_000;

/** A history page as the API asks for it: a page number and size, an order, a filter. */
export interface HistoryRequest {
  page: number;
  /** Values above HISTORY_MAX_LIMIT are clamped, not refused. */
  limit: number;
  sort: SortOrder;
  unfinished: boolean;
  /** Only this channel's records; null: every channel. */
  channelId: string | null;
}

/** What a history request asks when it leaves something out: the API's defaults, in one place. */
export const HISTORY_DEFAULTS = { page: 0, limit: 25, sort: 'desc', unfinished: false, channelId: null } as const satisfies HistoryRequest;

/** One page of the history, with what pagination needs. */
export interface HistoryPage {
  records: Livestream[];
  total: number;
  hasMore: boolean;
}

/**
 * One page of the archive (or of one channel's), newest or oldest first, with the total for
 * pagination; both totals are maintained aggregates. An unknown channel has an empty history.
 */
export async function listHistory(deps: { livestreams: LivestreamRepo }, request: HistoryRequest): Promise<HistoryPage> {
  const limit = Math.min(request.limit, HISTORY_MAX_LIMIT);
  const offset = request.page * limit;
  const total = await historyTotal(deps, request);
  const slice = { offset, limit, sort: request.sort, includeUnfinished: request.unfinished, channelId: request.channelId };
  const records = offset >= total ? [] : await deps.livestreams.listHistory(slice, total);
  return { records, total, hasMore: offset + limit < total };
}

async function historyTotal(deps: { livestreams: LivestreamRepo }, request: HistoryRequest): Promise<number> {
  if (request.channelId === null) {
    const totals = await deps.livestreams.totals();
    return request.unfinished ? totals.all : totals.finished;
  }
  return deps.livestreams.channelTotal(request.channelId, request.unfinished);
}
