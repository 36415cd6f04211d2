// Decisions: docs/decisions/0023-lifecycle-sweep.md
import { failLivestream } from './fail-livestream.js';
import { neverLiveReason } from '../records/lifecycle.js';
import { MOVED_ON_BY } from '../capture/capture-lifecycle.js';
import type { CaptureStates, EncoderLog } from '../capture/ports.js';
import type { LivestreamRepo } from '../records/ports.js';
import type { SweepAction, SweepRepo, Unattended } from './ports.js';
import type { PendingJobs, Scheduler } from '../scheduler.js';

export interface SweepPolicy {
  /** The never-live deadline, as the watch applies it (WatchPolicy.neverLiveSeconds). */
  neverLiveSeconds: number;
  /** A live record's lease older than this has no worker behind it (twice the watchdog's limit, so the watchdog goes first). */
  leaseSeconds: number;
  /** Records looked at per kind and run; the rest wait for the next run. */
  batch: number;
}

export type SweepDeps = { livestreams: LivestreamRepo; captures: CaptureStates & EncoderLog; scheduler: Scheduler; jobs: PendingJobs; sweep: SweepRepo };

/** A repair made, for the caller's report. */
export interface Repair {
  id: string;
  action: SweepAction;
}

/**
 * Finds records whose state has nothing behind it and repairs them: an upcoming record past its
 * never-live deadline that nothing watches is failed with the reason; one before it that nothing
 * watches is watched again; a live record whose capture lease went stale with no capture or
 * finalize waiting has its capture (or finalize) queued again; a kept capture whose stream nothing
 * looks at is looked at again (go-on-recording.ts). Each repair is written to the
 * record's encoder log and counted. Safe to run in many processes at once: jobs are deduplicated
 * by the queue and a record fails once (the transition re-reads it).
 */
export async function sweepLifecycle(deps: SweepDeps, policy: SweepPolicy, now: Date): Promise<Repair[]> {
  const repairs: Repair[] = [];
  const repaired = async (id: string, action: SweepAction, line: string) => {
    await deps.captures.appendLog(id, [`[kura] sweep: ${line}`]);
    await deps.sweep.countRepair(action);
    repairs.push({ id, action });
  };
  const cutoff = new Date(now.getTime() - policy.neverLiveSeconds * 1000);

  const overdue = await unwatched(deps, await deps.sweep.upcomingScheduledBefore(cutoff, policy.batch));
  for (const id of overdue) {
    const reason = neverLiveReason(policy.neverLiveSeconds, 'nothing was watching it any more');
    if (await failLivestream(deps, id, reason)) await repaired(id, 'fail', 'past its deadline with nothing watching it; failed');
  }
  for (const id of await unwatched(deps, await deps.sweep.upcomingScheduledFrom(cutoff, policy.batch))) {
    await deps.scheduler.watch(id);
    await repaired(id, 'watch', 'nothing was watching this upcoming stream; watching it again');
  }

  // a kept capture's stream is looked at until it goes on or its chunks are let go (decision 0090)
  for (const id of await unwatched(deps, await deps.sweep.keptCaptures(policy.batch))) {
    await deps.scheduler.watch(id);
    await repaired(id, 'watch', 'nothing was looking at this stream that may go on; looking at it again');
  }

  const stale = await deps.sweep.liveWithoutLease(policy.leaseSeconds, policy.batch);
  // a live record with no capture yet is recorded, one with a capture gets the job its state needs
  const jobOf = (r: Unattended) => (r.capture === null ? 'capture' : MOVED_ON_BY[r.capture]);
  const ended = stale.filter((r) => jobOf(r) === 'finalize').map((r) => r.id);
  const recording = stale.filter((r) => jobOf(r) === 'capture').map((r) => r.id);
  const finalizing = await deps.jobs.pending('finalize', ended);
  for (const id of ended.filter((id) => !finalizing.has(id))) {
    await deps.scheduler.finalize(id);
    await repaired(id, 'finalize', 'the recording ended and nothing was making it into a video; finalizing it again');
  }
  const capturing = await deps.jobs.pending('capture', recording);
  for (const id of recording.filter((id) => !capturing.has(id))) {
    await deps.scheduler.capture(id);
    await repaired(id, 'capture', 'no worker was recording this live stream; resuming the capture');
  }
  return repairs;
}

/** The ids among `ids` with no watch job waiting or running. */
async function unwatched(deps: Pick<SweepDeps, 'jobs'>, ids: string[]): Promise<string[]> {
  const watched = await deps.jobs.pending('watch', ids);
  return ids.filter((id) => !watched.has(id));
}
