import type { AccessRefusal, Follow, FollowRules, Sighting, SignalHealth, SignalName, StreamCandidate } from './follow.js';

/** A follow as created, before any check: every signal of its kind due now. */
export type NewFollow = Pick<Follow, 'id' | 'kind' | 'url' | 'channelId' | 'channelName' | 'title' | 'rules' | 'createdBy' | 'createdAt' | 'signals'> &
  Partial<Pick<Follow, 'retention'>>;

/** What one check of a follow wrote. */
export interface CheckOutcome {
  checkedAt: Date;
  /** Every signal of the follow, those looked at updated. */
  signals: SignalHealth[];
  failingSince: Date | null;
  /** The members-only refusal the follow stands under after this check; null: access works (or is not needed). */
  accessRefused: AccessRefusal | null;
  /** Added to queuedCount. */
  queued: number;
  /** This check starts an unhealthy spell (a `follow.unhealthy` event, written with the outcome). */
  becameUnhealthy: boolean;
}

export interface FollowRepo {
  /** Throws AppError `already_followed` (conflict) when a follow of the same `url` exists. */
  add(follow: NewFollow): Promise<Follow>;
  /** Every follow, oldest first. */
  list(): Promise<Follow[]>;
  find(id: string): Promise<Follow | null>;
  /** Writes changed fields; null when there is no such follow. */
  update(
    id: string,
    change: Partial<Pick<Follow, 'channelName' | 'title' | 'paused' | 'retention'>> & { rules?: FollowRules; nextCheckAt?: Date },
  ): Promise<Follow | null>;
  /** Deletes the follow and its sightings (its records stay); false when there was none. */
  remove(id: string): Promise<boolean>;
  /**
   * Takes up to `limit` unpaused follows due by `now`, moving each one's nextCheckAt to
   * `now + leaseSeconds` in the same statement (SKIP LOCKED), so no other worker checks it meanwhile.
   */
  claimDue(now: Date, leaseSeconds: number, limit: number): Promise<Follow[]>;
  /**
   * Stores a check's outcome; nextCheckAt becomes the earliest of the signals' nextCheckAt. With
   * `becameUnhealthy`, a `follow.unhealthy` event goes to the webhook outbox in the same statement.
   * `dueBefore` is the follow's nextCheckAt as the check found it (its claim's): one made earlier
   * while the check ran (a resume: due now) is kept, else the resume would be lost until the next look.
   */
  recordCheck(id: string, outcome: CheckOutcome, dueBefore: Date): Promise<void>;
  /** The earliest nextCheckAt of the unpaused follows; null when none. */
  nextDue(): Promise<Date | null>;
  /** This follow's sightings of these stream ids. */
  sightings(followId: string, streamIds: readonly string[]): Promise<Sighting[]>;
  /** Inserts or replaces sightings (by follow and stream id). */
  recordSightings(sightings: readonly Sighting[]): Promise<void>;
  /** The follow's latest sightings, newest first. */
  recentSightings(followId: string, limit: number): Promise<Sighting[]>;
}

/**
 * One way of learning a follow's streams. `look` lists what the signal shows now; it throws (an
 * Error with the reason in words) when the signal failed. An offline HLS endpoint is not a
 * failure: it answers, with no candidate.
 */
export interface FollowSignal {
  name: SignalName;
  /** Who is asked (a host name, or `yt-dlp`): requests to one are paced (see HostPacer). */
  host(follow: Follow): string;
  look(follow: Follow): Promise<StreamCandidate[]>;
}

/** A YouTube channel as a follow keeps it: a handle is resolved once, so a rename never breaks a follow. */
export interface ChannelIdentity {
  channelId: string;
  channelName: string;
}

export interface ChannelResolver {
  /** A YouTube channel id (`UC…`) or handle (`@name`) → its id and current name; throws an Error with the reason. */
  resolveYouTube(idOrHandle: string): Promise<ChannelIdentity>;
}

/** Spaces the requests to one host (per process): `wait` resolves when the next request to `host` may go. */
export interface HostPacer {
  wait(host: string): Promise<void>;
}
