// Decisions: docs/decisions/0023-lifecycle-sweep.md, docs/decisions/0101-an-idle-kura-writes-nothing.md
import type { CaptureCompaction } from '../../core/capture/ports.js';
import { completePendingTakedowns } from '../../core/record-actions/complete-takedown.js';
import { sweepLifecycle, type SweepPolicy } from '../../core/record-actions/sweep-lifecycle.js';
import type { BackgroundLog, WorkerDeps, WorkerSettings } from '../job-work.js';
import { startEvery } from '../runtime/every.js';

/** A worker sweeps this often (seconds). */
export const SWEEP_SECONDS = 60;
/** After a look that found nothing upcoming, live or being taken down, the sweep looks again at this tick (the fifth: five minutes). */
const QUIET_TICKS = 5;
/** Records looked at per sweep, per kind of repair. */
const SWEEP_BATCH = 5000;
/** Finalized captures compacted per statement: each deletes a capture's segments and chat messages, thousands of rows. */
const COMPACT_BATCH = 20;

/** What a sweep repairs: a live record's lease twice as old as the watchdog allows (the watchdog had its turn). */
function sweepPolicy(settings: WorkerSettings): SweepPolicy {
  return { neverLiveSeconds: settings.watch.neverLiveSeconds, leaseSeconds: 2 * settings.staleAfterSeconds, batch: SWEEP_BATCH };
}

/**
 * Completes the takedowns nothing else completed, then repairs records with nothing behind their
 * state (no job, no live lease), and fails those never live past their deadline. Skipped when no
 * record is upcoming, live or being taken down (all it looks at), and while another process's
 * sweep runs (the sweep repo's lock): a sweep finds what the last one repaired already repaired,
 * so the workers' sweeps need no turn-taking beyond not running at once.
 */
async function sweepOnce(work: { deps: WorkerDeps; settings: WorkerSettings; log: BackgroundLog }): Promise<boolean> {
  const { deps, settings, log } = work;
  const { workerId, staleAfterSeconds } = settings;
  // an archive with nothing upcoming, live or being taken down: one read, no lock
  if (!(await deps.sweep.anythingToSweep())) return false;
  await deps.sweep.alone(async () => {
    // first: a live record being taken down must not have its capture queued again by the repairs
    const takenDown = await completePendingTakedowns(
      deps,
      { olderThanSeconds: 2 * staleAfterSeconds, batch: SWEEP_BATCH, workerId, staleAfterSeconds },
      (id, error) => log.warn({ id, err: error }, 'a pending takedown could not be completed; the next sweep tries again'),
    );
    if (takenDown.length > 0) log.warn({ takenDown }, 'lifecycle sweep completed pending takedowns');
    const repairs = await sweepLifecycle(deps, sweepPolicy(settings), new Date());
    if (repairs.length > 0) log.warn({ repairs }, 'lifecycle sweep repaired records');
  });
  return true;
}

/**
 * Compacts finalized captures still holding their segments and chat messages (finalized before
 * summaries were kept, or by a worker that died between finalize's steps: decision 0112), a batch
 * at a time until none is left; workers share them (each batch skips what another's holds).
 */
export async function compactLeftovers(captures: Pick<CaptureCompaction, 'compactLeftovers'>, log: BackgroundLog): Promise<void> {
  let compacted = 0;
  for (;;) {
    const batch = await captures.compactLeftovers(COMPACT_BATCH);
    compacted += batch;
    if (batch < COMPACT_BATCH) break;
  }
  if (compacted > 0) log.info({ compacted }, 'lifecycle sweep compacted finalized captures (summaries instead of their segments and chat messages)');
}

/**
 * The lifecycle-sweep loop of the catalogue: a sweep at start and on its timer, in each worker,
 * in the worker itself (no job: a job's send, notification, fetch and completion each minute cost
 * an idle server more than the sweep's reads). A failed sweep is simply run again at the next tick.
 */
export function startLifecycleSweepLoop(
  context: { deps: WorkerDeps; settings: WorkerSettings; log: BackgroundLog },
  wake: { everySeconds: number },
): () => Promise<void> {
  // while the archive has nothing to sweep, one look every five minutes: what it repairs is minutes
  // overdue by then anyway, and an idle server's every query wakes PostgreSQL (decision 0086)
  let ticksToSkip = 0;
  // what older versions or a worker that died mid-finalize left: once a start (again at the next tick if it failed)
  let leftoversCompacted = false;
  const sweep = async () => {
    if (!leftoversCompacted) {
      await compactLeftovers(context.deps.captures, context.log);
      leftoversCompacted = true;
    }
    if (ticksToSkip > 0) return void (ticksToSkip -= 1);
    ticksToSkip = (await sweepOnce(context)) ? 0 : QUIET_TICKS - 1;
  };
  return startEvery(sweep, {
    everySeconds: wake.everySeconds,
    onError: (error) => context.log.warn({ err: error }, 'the lifecycle sweep failed; the next one tries again'),
  });
}
