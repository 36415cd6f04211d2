import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PermanentError } from '../../src/core/errors.js';
import { JOB_NAMES, type JobFailureHooks, type JobHandlers, type JobName } from '../../src/jobs/catalogue.js';
import type { FinalFailure } from '../../src/jobs/job-definition.js';
import type { Jobs } from '../../src/jobs/jobs.js';
import { startJobs, type JobsOptions } from '../../src/wiring/jobs.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { queuedJobs, startJobsWithoutWorkers, workJobs } from '../support/jobs.js';

// Kura's job runners on the real pg-boss and PostgreSQL: a worker does not poll, so every job here
// starts because it was sent, came due or found a free slot. The backstop look at the job table is
// an hour away: a job that waited for it would time the test out.
let db: TestDatabase;
let sender: Jobs;
let stopWorking: ((timeoutMs?: number) => Promise<void>) | null;

beforeEach(async () => {
  db = await createTestDatabase();
  sender = await startJobsWithoutWorkers(db.pool); // another process: an api, a CLI command
  stopWorking = null;
});
afterEach(async () => {
  await stopWorking?.();
  await sender.stop(0);
  await db.drop();
});

/** A promise with its resolve at hand. */
function signal<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const noop = async () => undefined;

/** A worker process running `handlers` (the others do nothing) with `hooks`, woken only by notifications. */
async function startWorker(
  handlers: Partial<JobHandlers>,
  options: { hooks?: Partial<JobFailureHooks>; maxCaptures?: number; policies?: JobsOptions['policies'] } = {},
): Promise<Jobs> {
  const all = (given: object) => Object.fromEntries(JOB_NAMES.map((name: JobName) => [name, (given as Record<string, unknown>)[name] ?? noop]));
  const worker = await startJobs({ pool: db.pool, onError: () => undefined, ...(options.policies ? { policies: options.policies } : {}) });
  stopWorking = await workJobs(
    worker,
    db.url,
    { handlers: all(handlers) as JobHandlers, hooks: all(options.hooks ?? {}) as JobFailureHooks },
    { maxCaptures: options.maxCaptures ?? 1 },
  );
  return worker;
}

/** A capture handler that runs until told to end, with the ids it started in order and a wait for the n-th start. */
function heldCaptures() {
  const started: string[] = [];
  const running = new Map<string, () => void>();
  let startedChanged = signal();
  return {
    started,
    end: (id: string) => running.get(id)!(),
    handler: ({ livestreamId }: { livestreamId: string }) =>
      new Promise<void>((resolve) => {
        started.push(livestreamId);
        running.set(livestreamId, resolve);
        startedChanged.resolve();
      }),
    async startedCount(count: number) {
      while (started.length < count) {
        startedChanged = signal();
        await startedChanged.promise;
      }
    },
  };
}

const jobState = async (name: JobName, key: string) => (await queuedJobs(db, name)).filter((job) => job.singletonKey === key).map((job) => job.state);

describe('job runners', () => {
  it('start a job another process sends at once, not at the backstop', async () => {
    const ran = signal<number>();
    await startWorker({ 'index-records': async () => ran.resolve(Date.now()) });
    const sentAt = Date.now();
    await sender.indexRecords();
    expect((await ran.promise) - sentAt).toBeLessThan(2000);
    await expect.poll(() => jobState('index-records', 'search')).toEqual(['completed']);
  });

  it('run a delayed job when it comes due, not before', async () => {
    const ran = signal<number>();
    await startWorker({ 'watch-stream': async () => ran.resolve(Date.now()) });
    const due = Date.now() + 1500;
    await sender.watch('later', new Date(due));
    const startedAt = await ran.promise;
    expect(startedAt).toBeGreaterThanOrEqual(due - 50); // the database's clock and ours: the same machine
    expect(startedAt - due).toBeLessThan(1000);
  });

  it('with every capture slot busy, leave a further capture waiting, and start it when a slot frees', async () => {
    const captures = heldCaptures();
    const indexed = signal();
    await startWorker({ 'capture-stream': captures.handler, 'index-records': async () => indexed.resolve() }, { maxCaptures: 2 });
    for (const id of ['first', 'second', 'third']) await sender.capture(id);
    await captures.startedCount(2);
    // a job sent after the third capture has run: the worker heard of the third and had no slot for it
    await sender.indexRecords();
    await indexed.promise;
    // the two may start in either order (fetched apart, as each notification came)
    expect([...captures.started].sort()).toEqual(['first', 'second']);
    expect(await jobState('capture-stream', 'third')).toEqual(['created']);

    const freedAt = Date.now();
    captures.end('first');
    await captures.startedCount(3);
    expect(captures.started[2]).toBe('third');
    expect(Date.now() - freedAt).toBeLessThan(2000);
    await expect.poll(() => jobState('capture-stream', 'first')).toEqual(['completed']);
  });

  it('with every capture slot busy, start a resumed capture (its worker died) before new ones that waited longer', async () => {
    const captures = heldCaptures();
    await startWorker({ 'capture-stream': captures.handler }, { maxCaptures: 1 });
    await sender.capture('busy');
    await captures.startedCount(1);
    await sender.capture('new-1');
    await sender.capture('new-2');
    await sender.capture('resumed', { resume: true }); // as the watchdog asks for a dead worker's capture
    captures.end('busy');
    await captures.startedCount(2);
    expect(captures.started).toEqual(['busy', 'resumed']);
  });

  it("start a resumed capture at once though the same record's capture was sent moments before (the dead worker's, in the same dedup window)", async () => {
    const captures = heldCaptures();
    await startWorker({ 'capture-stream': captures.handler }, { maxCaptures: 2 });
    await sender.capture('crashed');
    await sender.capture('crashed'); // a second ask in the window is the same work
    await captures.startedCount(1);
    captures.end('crashed'); // its worker died: the job is over, the capture is not
    await sender.capture('crashed', { resume: true });
    await captures.startedCount(2);
    expect(captures.started).toEqual(['crashed', 'crashed']);
  });

  it("retry a failing job per its queue's policy, then run its failure hook", async () => {
    const attempts: number[] = [];
    const failed = signal<FinalFailure>();
    await startWorker(
      {
        'finalize-archive': async () => {
          attempts.push(Date.now());
          throw new Error('the store hiccuped');
        },
      },
      {
        hooks: { 'finalize-archive': async (_payload, failure) => failed.resolve(failure) },
        policies: { 'finalize-archive': { retryLimit: 1, retryDelay: 1, retryBackoff: false } },
      },
    );
    await sender.finalize('shaky');
    expect(await failed.promise).toMatchObject({ message: 'the store hiccuped', permanent: false, attempts: 2 });
    expect(attempts).toHaveLength(2);
    // the retry waited its delay (1 s), and no longer: it was woken, not polled for
    expect(attempts[1]! - attempts[0]!).toBeGreaterThanOrEqual(900);
    expect(attempts[1]! - attempts[0]!).toBeLessThan(2500);
    await expect.poll(() => jobState('finalize-archive', 'shaky')).toEqual(['failed']);
  });

  it('end a job whose handler throws a PermanentError at once: its hook runs, and it is completed with the reason', async () => {
    let tries = 0;
    const failed = signal<FinalFailure>();
    await startWorker(
      {
        'watch-stream': async () => {
          tries += 1;
          throw new PermanentError('The source says the video is gone: private');
        },
      },
      { hooks: { 'watch-stream': async (_payload, failure) => failed.resolve(failure) } },
    );
    await sender.watch('gone');
    expect(await failed.promise).toMatchObject({ message: 'The source says the video is gone: private', permanent: true, attempts: 1 });
    const job = async () =>
      (await db.pool.query(`select state, retry_count, output from pgboss.job where name = 'watch-stream' and singleton_key = 'gone'`)).rows;
    await expect.poll(job).toEqual([{ state: 'completed', retry_count: 0, output: { permanentFailure: 'The source says the video is gone: private' } }]);
    expect(tries).toBe(1);
  });

  it('look at the job table when the notifications connection drops: a job whose notification never came runs', async () => {
    const ran = signal<string>();
    const indexed = signal();
    let captures = 0;
    await startWorker({
      'capture-stream': async ({ livestreamId }) => {
        captures += 1;
        ran.resolve(livestreamId);
      },
      'index-records': async () => indexed.resolve(),
    });
    // the worker's first look at the job table is behind it once a first job has run
    await sender.watch('warm-up');
    await expect.poll(() => jobState('watch-stream', 'warm-up')).toEqual(['completed']);
    // a job no notification tells of: written with triggers off (as a replica applies rows)
    const client = await db.pool.connect();
    try {
      await client.query(`set session_replication_role = replica`);
      await client.query(`insert into pgboss.job (name, data, singleton_key) values ('capture-stream', '{"livestreamId": "unheard"}', 'unheard')`);
    } finally {
      await client.query(`set session_replication_role = origin`);
      client.release();
    }
    // a job sent after it has run: the worker would have heard of the first by now
    await sender.indexRecords();
    await indexed.promise;
    expect(captures).toBe(0);
    await db.pool.query(`select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'kura-change-feed' and datname = current_database()`);
    expect(await ran.promise).toBe('unheard');
  });

  it('on stop, give a running job its time, and fail one still running at the deadline so it is retried', async () => {
    const finishing = signal();
    const started = new Set<string>();
    const bothStarted = signal();
    await startWorker(
      {
        'capture-stream': ({ livestreamId }) => {
          started.add(livestreamId);
          if (started.size === 2) bothStarted.resolve();
          // 'quick' ends once the stop began; 'stuck' never does
          return livestreamId === 'quick' ? finishing.promise : new Promise<void>(() => undefined);
        },
      },
      { maxCaptures: 2, policies: { 'capture-stream': { retryDelay: 3600 } } },
    );
    await sender.capture('quick');
    await sender.capture('stuck');
    await bothStarted.promise;
    const stopping = stopWorking!(1000);
    stopWorking = null;
    finishing.resolve();
    await stopping;
    expect(await jobState('capture-stream', 'quick')).toEqual(['completed']);
    expect(await jobState('capture-stream', 'stuck')).toEqual(['retry']);
  });
});
