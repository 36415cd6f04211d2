// Decisions: docs/decisions/0111-follows-shared-evenly.md
import type { Follow, SignalHealth } from './follow.js';
import type { CheckOutcome } from './ports.js';

/**
 * Whether a check's outcome changed what a user or another process can see of the follow, so it
 * must be written now: a stream queued, the follow's health (failing, unhealthy, members-only
 * access), a signal's state (answering or failing, the failure's words), or the follow's first
 * check. Otherwise (an off-air 404 after an off-air 404) only the times moved: written in a batch.
 */
export function checkChanged(follow: Follow, outcome: CheckOutcome): boolean {
  if (outcome.queued > 0 || outcome.becameUnhealthy || follow.lastCheckedAt === null) return true;
  if (time(follow.failingSince) !== time(outcome.failingSince)) return true;
  if (JSON.stringify(follow.accessRefused) !== JSON.stringify(outcome.accessRefused)) return true;
  return outcome.signals.some((after) =>
    signalChanged(
      follow.signals.find((s) => s.signal === after.signal),
      after,
    ),
  );
}

function signalChanged(before: SignalHealth | undefined, after: SignalHealth): boolean {
  if (before === undefined) return true;
  if ((before.lastOkAt === null) !== (after.lastOkAt === null)) return true;
  return before.lastError !== after.lastError || (before.lastErrorPublic ?? null) !== (after.lastErrorPublic ?? null);
}

const time = (date: Date | null) => date?.getTime() ?? null;

/** The follow as it stands after a check with this outcome (what the database has once the outcome is written). */
export function afterCheck(follow: Follow, outcome: CheckOutcome): Follow {
  return {
    ...follow,
    signals: outcome.signals,
    lastCheckedAt: outcome.checkedAt,
    nextCheckAt: earliestCheck(outcome.signals, outcome.checkedAt),
    failingSince: outcome.failingSince,
    accessRefused: outcome.accessRefused,
    queuedCount: follow.queuedCount + outcome.queued,
  };
}

/** The earliest next check among the signals (a follow is due when its first signal is); `fallback` when it has none. */
export function earliestCheck(signals: readonly SignalHealth[], fallback: Date): Date {
  const times = signals.map((s) => s.nextCheckAt.getTime());
  return times.length === 0 ? fallback : new Date(Math.min(...times));
}
