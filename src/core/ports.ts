import type { Livestream, LivestreamInput } from './livestream.js';

export type SortOrder = 'asc' | 'desc';

export interface HistoryQuery {
  offset: number;
  limit: number;
  sort: SortOrder;
  /** false: finished records only; true: every record. */
  includeUnfinished: boolean;
}

/** Aggregates maintained in the same transaction as the rows they count. */
export interface LivestreamTotals {
  /** Every record. */
  all: number;
  finished: number;
  /** Archived and queued records: everything but `failed`. */
  counted: number;
  totalFileSizeBytes: number;
  totalLengthSeconds: number;
  uniqueChannels: number;
}

export interface LivestreamRepo {
  /** Reads one page ordered by scheduled start, ties broken by id. */
  listHistory(query: HistoryQuery, total: number): Promise<Livestream[]>;
  /** Upcoming and live records, soonest first. */
  listQueue(limit: number): Promise<Livestream[]>;
  findById(id: string): Promise<Livestream | null>;
  totals(): Promise<LivestreamTotals>;
  /** Inserts or updates records and appends new submitters, all in one transaction. */
  upsertMany(records: readonly LivestreamInput[]): Promise<{ inserted: number; updated: number }>;
}

/** Committed changes to records, from any process; read caches depend on it. */
export interface ChangeFeed {
  /** False while changes could be missed: caches must be bypassed then. */
  readonly connected: boolean;
  onChange(listener: () => void): void;
}
