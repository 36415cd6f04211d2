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

/** A record the sweep found with nothing behind its state. */
export interface Unattended {
  id: string;
  /** The capture's state; null when the record has none. */
  capture: 'capturing' | 'ended' | 'kept' | 'finalized' | null;
}

/** What the lifecycle sweep reads, and the repairs it counts. */
export interface SweepRepo {
  /** Whether any record is upcoming, live or being taken down: with none, a sweep has nothing to look at. */
  anythingToSweep(): Promise<boolean>;
  /** Upcoming records scheduled to start before `cutoff`, oldest first. */
  upcomingScheduledBefore(cutoff: Date, limit: number): Promise<string[]>;
  /** Upcoming records scheduled at or after `cutoff`, soonest first. */
  upcomingScheduledFrom(cutoff: Date, limit: number): Promise<string[]>;
  /** Live records whose capture lease was last renewed more than `staleSeconds` ago (or that have no capture). */
  liveWithoutLease(staleSeconds: number, limit: number): Promise<Unattended[]>;
  /** Finished records whose capture is kept for their stream to go on (decision 0090), the soonest let go first. */
  keptCaptures(limit: number): Promise<string[]>;
  /** Records with a takedown asked more than `olderThanSeconds` ago and not completed yet, oldest first (see complete-takedown.ts). */
  pendingTakedowns(olderThanSeconds: number, limit: number): Promise<string[]>;
  /** Adds one repair of `action` to the counts /metrics shows. */
  countRepair(action: SweepAction): Promise<void>;
  /** Repairs made so far, by action, across every process. */
  repairCounts(): Promise<Partial<Record<SweepAction, number>>>;
  /** Runs `sweep` unless a sweep runs in any process already (then resolves at once, without running it). */
  alone(sweep: () => Promise<void>): Promise<void>;
}

/** What the sweep did to a record: watched it again, resumed its capture or finalize, or failed it. */
export type SweepAction = 'watch' | 'capture' | 'finalize' | 'fail';
