import type { LifecycleEvent } from './lifecycle.js';
import type { Livestream, LivestreamChange, LivestreamInput } from './livestream.js';

/** Oldest first (`asc`) or newest first (`desc`), by scheduled start. */
export type SortOrder = 'asc' | 'desc';

/** The rows of one history page as the repository reads them: an offset into the ordered records (not a page number), and a filter. */
export interface HistorySlice {
  offset: number;
  limit: number;
  sort: SortOrder;
  /** false: finished records only; true: every record. */
  includeUnfinished: boolean;
  /** Only this channel's records; null: every channel. */
  channelId: string | null;
}

/** Aggregates maintained in the same transaction as the rows they count. */
export interface GrowthMonth {
  /** `YYYY-MM`, UTC. */
  month: string;
  count: number;
  fileSizeBytes: number;
  lengthSeconds: number;
}

/** Counts and sums over every record, maintained with them. */
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

/** The livestream records in the database. */
export interface LivestreamRepo {
  /** Reads one page ordered by scheduled start, ties broken by id. */
  listHistory(slice: HistorySlice, total: number): Promise<Livestream[]>;
  /** Upcoming and live records (of one channel when `channelId` is given), soonest first. */
  listQueue(limit: number, channelId?: string | null): Promise<Livestream[]>;
  findById(id: string): Promise<Livestream | null>;
  /** The records of these ids that exist, in no particular order. */
  findManyById(ids: readonly string[]): Promise<Livestream[]>;
  /** An upcoming or live record of this source URL, to join instead of duplicating. */
  findActiveBySource(sourceUrl: string): Promise<Livestream | null>;
  /** The record of `sourceUrl` created last, whatever its status; null when there is none. */
  findLatestBySource(sourceUrl: string): Promise<Livestream | null>;
  totals(): Promise<LivestreamTotals>;
  /** How many records one channel's history holds (finished ones, or every one with `includeUnfinished`), from the per-channel aggregates; 0 for a channel never seen. */
  channelTotal(channelId: string, includeUnfinished: boolean): Promise<number>;
  /** Finished records per calendar month (UTC) of their scheduled start, oldest month first. */
  growth(): Promise<GrowthMonth[]>;
  /** Inserts or updates records and appends new submitters, all in one transaction. */
  upsertMany(records: readonly LivestreamInput[]): Promise<{ inserted: number; updated: number }>;
  /** Writes what the source says of a record now (schedule, title, channel, thumbnail); never its status. */
  update(id: string, change: DetailsChange): Promise<void>;
  /**
   * Moves a record through the lifecycle: re-reads it under a row lock, applies `event` with
   * `applyEvent` (lifecycle.ts) and writes the result, in one transaction; returns the record as
   * it is now. Throws `livestream_not_found`, `livestream_state_conflict`.
   */
  transition(id: string, event: LifecycleEvent): Promise<Livestream>;
  /** Counts one download of the video. */
  countDownload(id: string): Promise<void>;
}

/** The watch job's last look at an upcoming record's source, which did not find it live. */
export interface WatchLook {
  lookedAt: Date;
  /** What the source answered ("…: HTTP 404", "no segment yet"); null when it said nothing. */
  reason: string | null;
  nextLookAt: Date;
}

/** The last look at each upcoming record, kept apart from the record (a look changes nothing of it). */
export interface WatchLooks {
  note(livestreamId: string, look: WatchLook): Promise<void>;
  /** The looks of these records that have one. */
  find(livestreamIds: readonly string[]): Promise<Map<string, WatchLook>>;
}

/** What a source may change of a record outside the lifecycle. */
export type DetailsChange = Pick<LivestreamChange, 'scheduledStart' | 'title' | 'channelName' | 'thumbnailUrl'>;
