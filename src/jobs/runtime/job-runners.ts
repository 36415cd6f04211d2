import type { JobQueue } from './job-queue.js';
import type { ChangeFeed } from '../../shared/change-feed.js';
import { JOB_NAMES, JOBS, type JobFailureHooks, type JobHandlers, type JobName } from '../catalogue.js';
import { finalFailure, type JobDefinition, type WorkerLimits } from '../job-definition.js';
import { readPayload } from './payloads.js';
import { QueueRunner } from './queue-runner.js';
import { wakeEvery } from '../../shared/wake-ups.js';
import type { Jobs } from '../jobs.js';

/** How a worker's runners run: its limits, and what wakes them. */
export interface WorkOptions extends WorkerLimits {
  /** The JOB_NOTIFY_CHANNEL notifications: a job sent or brought forward by any process wakes its queue. */
  wake: ChangeFeed;
  /** How often the job table is looked at whatever the notifications said (KURA_JOB_POLL_SECONDS): the backstop. */
  backstopSeconds: number;
}

/** The runners of one worker: pausing takes no new job; stopping also waits for (or fails) the running ones. */
export interface JobRunners {
  pause(): void;
  /** Waits until `deadline` (epoch ms) for the running jobs; those still running then are failed, so the queue retries them. */
  stop(deadline: number): Promise<void>;
}

/**
 * Starts handling jobs: one runner per job of the catalogue, running as many at once as the job's
 * concurrency allows, woken by the jobs sent rather than polling (and by the backstop). Each job's
 * payload is read with its schema first: a malformed one ends the job without running anything.
 */
export function startJobRunners(
  queue: JobQueue,
  handlers: JobHandlers,
  hooks: JobFailureHooks,
  options: WorkOptions,
  onError: (error: Error) => void,
): JobRunners {
  const runners = JOB_NAMES.map(
    (name) =>
      new QueueRunner({ name, concurrency: (JOBS[name] as JobDefinition).concurrency(options), run: runner(handlers, hooks, name, onError) }, queue, onError),
  );
  const byName = new Map(runners.map((r) => [r.name, r]));
  const recheck = () => {
    queue.due(JOB_NAMES).then((due) => {
      for (const r of runners) if (due.has(r.name)) r.wakeIn(due.get(r.name) as number);
    }, onError);
  };
  options.wake.onChange((payload) => {
    // none: the notifications (re)connected or were lost, and jobs may have been sent meanwhile
    if (payload === undefined) return recheck();
    const [name = '', ms = '0'] = payload.split(' ');
    byName.get(name)?.wakeIn(Number(ms));
  });
  const stopBackstop = wakeEvery(options.backstopSeconds * 1000, recheck);
  recheck();
  const pause = () => {
    stopBackstop();
    for (const r of runners) r.pause();
  };
  return {
    pause,
    async stop(deadline) {
      pause();
      await Promise.all(runners.map((r) => r.stop(deadline)));
    },
  };
}

/**
 * A job's run: its payload read, its handler, then on a final failure its hook; a PermanentError
 * completes the job with the reason (retrying cannot mend it), as does a malformed payload, whose
 * hook is not run (it has no payload to give it) and which is told to `onError`.
 */
function runner(handlers: JobHandlers, hooks: JobFailureHooks, name: JobName, onError: (error: Error) => void) {
  const definition = JOBS[name] as JobDefinition;
  const handle = handlers[name] as (payload: unknown, job: { id: string }) => Promise<void>;
  const onFailure = hooks[name] as (payload: unknown, failure: NonNullable<ReturnType<typeof finalFailure>>) => Promise<void>;
  return async (job: { id: string; data: unknown; retryCount: number; retryLimit: number }): Promise<object | undefined> => {
    let payload: unknown;
    try {
      payload = await readPayload(name, definition.payload, job.data);
    } catch (error) {
      const refused = finalFailure(error, job) as NonNullable<ReturnType<typeof finalFailure>>;
      onError(new Error(`job ${job.id} refused: ${refused.message}`));
      return { permanentFailure: refused.message };
    }
    try {
      await handle(payload, { id: job.id });
      return undefined;
    } catch (error) {
      const failure = finalFailure(error, job);
      if (failure === null) throw error; // retried
      await onFailure(payload, failure); // if this throws, the job is retried and the hook runs again
      if (!failure.permanent) throw error;
      return { permanentFailure: failure.message };
    }
  };
}

/**
 * The job-runners loop of the catalogue: one runner per job, woken by JOB_NOTIFY_CHANNEL (a job
 * sent, retried or brought forward), its backstop a look at the job table. Its stop takes no
 * more jobs; those running go on until the queue stops.
 */
export function startJobRunnersLoop(
  context: { jobs: Pick<Jobs, 'work' | 'pause'>; handlers: JobHandlers; hooks: JobFailureHooks; timing: WorkerLimits },
  wake: { feed: ChangeFeed; everySeconds: number },
): () => void {
  context.jobs.work(context.handlers, context.hooks, { maxCaptures: context.timing.maxCaptures, wake: wake.feed, backstopSeconds: wake.everySeconds });
  return () => context.jobs.pause();
}
