// What the record actions need that the records' own ports do not give: the lifecycle sweep's reads and counts.

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
