// Decisions: docs/decisions/0021-lifecycle-table.md
import { AppError } from '../errors.js';
import type { LivestreamChange } from './livestream.js';
import type { LivestreamStatus } from '../vocabulary.js';

/** What can happen to a record; each event carries what the record keeps of it. */
export type LifecycleEvent =
  /** The capture began recording. */
  | { type: 'went_live'; at: Date }
  /**
   * Finalize stored the archive; the record says what the stored file is. `keptUntil`: the
   * capture's chunks are kept until then, for the stream to go on (decision 0090).
   */
  | { type: 'archived'; endedAt: Date; archive: NonNullable<LivestreamChange['archive']>; keptUntil?: Date }
  /** Kura gave up (a permanent error, exhausted retries, a deadline): `reason` is for people. */
  | { type: 'gave_up'; reason: string; endedAt?: Date }
  /** An admin cancelled: an upcoming stream is no longer waited for; a live capture is asked to stop. */
  | { type: 'cancelled'; reason: string }
  /** An admin retried a failed record that has nothing captured: its source is watched again. */
  | { type: 'retried' }
  /** An admin retried a failed record whose capture holds parts: they are finalized again. */
  | { type: 'retried_finalize' }
  /** The stream of an archived record went on after its capture ended as it might (decision 0090): recorded again from its next fragment, the archive kept until finalize replaces it. */
  | { type: 'continued' };

export type LifecycleEventType = LifecycleEvent['type'];

/**
 * The whole lifecycle: the state each event leads to, per state. A pair missing here is refused.
 * `finished` is the end but for a stream that went on after its capture ended as it might
 * (`continued`, decision 0090); every other state has a way out (`failed` by `retried`). Cancelling a live
 * record leaves it `live`: the capture stops and finalize then archives what was recorded.
 */
export const TRANSITIONS: Readonly<Record<LivestreamStatus, Readonly<Partial<Record<LifecycleEventType, LivestreamStatus>>>>> = {
  upcoming: { went_live: 'live', gave_up: 'failed', cancelled: 'failed' },
  live: { archived: 'finished', gave_up: 'failed', cancelled: 'live' },
  finished: { continued: 'live' },
  failed: { retried: 'upcoming', retried_finalize: 'live' },
};

const DOING: Record<LifecycleEventType, string> = {
  went_live: 'start recording',
  archived: 'be archived',
  gave_up: 'fail',
  cancelled: 'be cancelled',
  retried: 'be retried',
  retried_finalize: 'be finalized again',
  continued: 'go on recording',
};

/** Whether `event` may happen to a record in `current`. */
export function canMove(current: LivestreamStatus, event: LifecycleEventType): boolean {
  return TRANSITIONS[current][event] !== undefined;
}

/** The state `event` leads to from `current`. Throws `livestream_state_conflict` when the table refuses it. */
export function nextStatus(current: LivestreamStatus, event: LifecycleEventType): LivestreamStatus {
  const next = TRANSITIONS[current][event];
  if (next === undefined) throw new AppError('conflict', 'livestream_state_conflict', `A ${current} livestream cannot ${DOING[event]}.`);
  return next;
}

/**
 * Everything a record changes when `event` happens in `current`: the new status and the fields
 * that go with it (a failed record always has a reason; any other never does).
 * Throws `livestream_state_conflict` when the table refuses the move.
 */
export function applyEvent(current: LivestreamStatus, event: LifecycleEvent): LivestreamChange & { status: LivestreamStatus } {
  const status = nextStatus(current, event.type);
  switch (event.type) {
    case 'went_live':
      return { status, startedAt: event.at };
    case 'archived':
      return { status, failureReason: null, endedAt: event.endedAt, archive: event.archive };
    case 'gave_up':
      return { status, failureReason: event.reason, ...(event.endedAt ? { endedAt: event.endedAt } : {}) };
    case 'cancelled':
      return status === 'failed' ? { status, failureReason: `Cancelled by an admin: ${event.reason}` } : { status };
    case 'retried':
    case 'retried_finalize':
      return { status, failureReason: null };
    case 'continued':
      return { status };
  }
}

/**
 * When an upcoming record that has not gone live is given up: `neverLiveSeconds` after its
 * scheduled start. The same for submitted and imported records, and for the watch and the sweep.
 */
export function neverLiveDeadline(scheduledStart: Date, neverLiveSeconds: number): Date {
  return new Date(scheduledStart.getTime() + neverLiveSeconds * 1000);
}

/** Why a record that never went live was given up, in words. */
export function neverLiveReason(neverLiveSeconds: number, why: string): string {
  return `No stream appeared within ${describeSeconds(neverLiveSeconds)} of the scheduled start (${why}).`;
}

/** `12 h`, `90 min`, `5 s`: the largest unit that says it in whole numbers, or hours rounded. */
export function describeSeconds(seconds: number): string {
  if (seconds >= 3600 && seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds >= 60 && seconds % 60 === 0) return `${seconds / 60} min`;
  if (seconds < 3600) return `${Math.round(seconds)} s`;
  return `${Math.round(seconds / 3600)} h`;
}
