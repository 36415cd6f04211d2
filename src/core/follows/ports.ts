import type { AccessRefusal, Follow, FollowKind, FollowRules, Sighting, SignalHealth, SignalName, StreamCandidate } from './follow.js';

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

export interface FollowRepo extends FollowClaims {
  /** Throws AppError `already_followed` (conflict) when a follow of the same `url` exists. */
  add(follow: NewFollow): Promise<Follow>;
  /** Every follow, oldest first. */
  list(): Promise<Follow[]>;
  /** The URLs of every unpaused follow of this kind (what the Helix signal asks Twitch about at once). */
  unpausedUrls(kind: FollowKind): Promise<string[]>;
  find(id: string): Promise<Follow | null>;
  /** Writes changed fields; null when there is no such follow. */
  update(
    id: string,
    change: Partial<Pick<Follow, 'channelName' | 'title' | 'paused' | 'retention'>> & { rules?: FollowRules; nextCheckAt?: Date },
  ): Promise<Follow | null>;
  /** Deletes the follow and its sightings (its records stay); false when there was none. */
  remove(id: string): Promise<boolean>;
  /**
   * Stores a check's outcome; nextCheckAt becomes the earliest of the signals' nextCheckAt. With
   * `becameUnhealthy`, a `follow.unhealthy` event goes to the webhook outbox in the same statement.
   * `dueBefore` is the follow's nextCheckAt as the check found it: one made earlier while the check
   * ran (a resume: due now) is kept, else the resume would be lost until the next look.
   */
  recordCheck(id: string, outcome: CheckOutcome, dueBefore: Date): Promise<void>;
  /** This follow's sightings of these stream ids. */
  sightings(followId: string, streamIds: readonly string[]): Promise<Sighting[]>;
  /** Inserts or replaces sightings (by follow and stream id). */
  recordSightings(sightings: readonly Sighting[]): Promise<void>;
  /** The follow's latest sightings, newest first. */
  recentSightings(followId: string, limit: number): Promise<Sighting[]>;
}

/** A check that changed nothing but times, as a worker writes it later in a batch (decision 0082). */
export interface HeldLook {
  id: string;
  checkedAt: Date;
  signals: SignalHealth[];
  nextCheckAt: Date;
  /** The follow's nextCheckAt as the worker last wrote or read it: one brought before it meanwhile (a resume) is kept. */
  dueBefore: Date;
}

/** What a claim took, and when another worker's lease runs out first. */
export interface Claimed {
  follows: Follow[];
  nextLeaseEnd: Date | null;
}

/**
 * The follows a worker holds (decision 0082): it claims many at once for a lease, renews the lease
 * of all it holds in one statement, and checks them on a schedule kept in its memory. A follow is
 * never held by two workers; a crashed worker's follows are claimed by another once its lease ran out.
 */
export interface FollowClaims {
  /**
   * Takes up to `limit` unpaused follows that no worker holds, or whose holder's lease ran out by
   * `now`, soonest due first, for `worker` until `now + leaseSeconds` (SKIP LOCKED: concurrent
   * claims never take one follow twice); and says when the first lease of another worker's runs
   * out (null: none), when its follows may be taken over if that worker is gone.
   */
  claim(worker: string, now: Date, leaseSeconds: number, limit: number): Promise<Claimed>;
  /** Extends the lease of these follows `worker` holds to `until`; returns the ids it still holds (not one removed, or taken over). */
  renew(worker: string, ids: readonly string[], until: Date): Promise<string[]>;
  /** Lets go of these follows (every one `worker` holds when null), so another worker may claim them at once. */
  release(worker: string, ids: readonly string[] | null): Promise<void>;
  /** Writes the times of checks that changed nothing else, for the follows `worker` still holds. */
  recordLooks(worker: string, looks: readonly HeldLook[]): Promise<void>;
  /** The workers alive now (their database sessions, migration 0032; at least 1) and the unpaused follows they share. */
  sharing(): Promise<{ workers: number; follows: number }>;
}

/**
 * One way of learning a follow's streams. `look` lists what the signal shows now; it throws (an
 * Error with the reason in words) when the signal failed. An offline HLS endpoint is not a
 * failure: it answers, with no candidate.
 */
export interface FollowSignal {
  name: SignalName;
  /**
   * Who is asked (a host name, or `yt-dlp`): requests to one are paced (see HostPacer). Null: the
   * signal paces itself (Helix: one request answers a hundred follows, within Twitch's rate-limit headers).
   */
  host(follow: Follow): string | null;
  look(follow: Follow): Promise<StreamCandidate[]>;
  /** The follow was brought forward (a resume, a `stream.online`): its next look is not answered from what was asked before (decision 0138). */
  forget?(follow: Follow): void;
}

/** A YouTube channel as a follow keeps it: a handle is resolved once, so a rename never breaks a follow. */
export interface ChannelIdentity {
  channelId: string;
  channelName: string;
}

export interface ChannelResolver {
  /** A YouTube channel id (`UC…`) or handle (`@name`) → its id and current name; throws an Error with the reason. */
  resolveYouTube(idOrHandle: string): Promise<ChannelIdentity>;
  /** A Twitch login → the channel's login (lower case) and display name; throws an Error with the reason (no such channel, Twitch refused). */
  resolveTwitch(login: string): Promise<{ login: string; channelName: string }>;
}

/**
 * Spaces the requests to one host: `wait` resolves when the next request to `host` may go. The
 * rate is the whole instance's: with `workers` workers sharing the follows evenly, each sends its
 * `1 / workers` of it (`shareWith`, told at each claim).
 */
export interface HostPacer {
  wait(host: string): Promise<void>;
  shareWith(workers: number): void;
}
