import { PgBoss } from 'pg-boss';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JOB_NAMES, type JobFailureHooks, type JobHandlers, type JobName } from '../../src/jobs/catalogue.js';
import type { Jobs } from '../../src/jobs/jobs.js';
import { startJobs } from '../../src/wiring/jobs.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { workJobs } from '../support/jobs.js';

// A job whose stored payload its schema refuses (sent by hand, by another release, damaged) on the
// real pg-boss: it is never handed to its handler nor its failure hook, and it ends at once with why.
let db: TestDatabase;
let worker: Jobs;
let stopWorking: (timeoutMs?: number) => Promise<void>;
const handled: string[] = [];
const hooked: string[] = [];
const errors: string[] = [];

beforeEach(async () => {
  handled.length = 0;
  hooked.length = 0;
  errors.length = 0;
  db = await createTestDatabase();
  worker = await startJobs({ pool: db.pool, onError: (error) => errors.push(error.message) });
  const all = <T>(make: (name: JobName) => T) => Object.fromEntries(JOB_NAMES.map((name) => [name, make(name)]));
  const handlers = all((name) => async (payload: unknown) => void handled.push(`${name} ${JSON.stringify(payload)}`)) as unknown as JobHandlers;
  const hooks = all((name) => async () => void hooked.push(name)) as unknown as JobFailureHooks;
  stopWorking = await workJobs(worker, db.url, { handlers, hooks }, { maxCaptures: 1 });
});
afterEach(async () => {
  await stopWorking();
  await db.drop();
});

/** Sends a job as another program would, through pg-boss itself: whatever payload it likes. */
async function sendRaw(name: JobName, data: object, key: string): Promise<void> {
  const boss = new PgBoss({ connectionString: db.url, schedule: false, supervise: false });
  await boss.start();
  try {
    await boss.send(name, data, { singletonKey: key });
  } finally {
    await boss.stop({ graceful: false });
  }
}

const jobOf = async (name: JobName, key: string) =>
  (await db.pool.query(`select state, retry_count, output from pgboss.job where name = $1 and singleton_key = $2`, [name, key])).rows;

describe('a job with a malformed payload', () => {
  it('is completed at once with the reason, without running its handler or its hook, and the worker is told', async () => {
    await sendRaw('capture-stream', { livestreamId: 42 }, 'bad');
    await expect
      .poll(() => jobOf('capture-stream', 'bad'), { timeout: 10_000 })
      .toEqual([
        {
          state: 'completed',
          retry_count: 0,
          output: { permanentFailure: expect.stringMatching(/^The capture-stream job's payload is malformed \(\/livestreamId .+\): \{"livestreamId":42\}$/) },
        },
      ]);
    expect(handled).toEqual([]);
    expect(hooked).toEqual([]);
    expect(errors).toEqual([expect.stringContaining("refused: The capture-stream job's payload is malformed")]);
  });

  it('does not hold up the well-formed jobs of its queue', async () => {
    await sendRaw('finalize-archive', {}, 'missing-id');
    await worker.finalize('fine');
    await expect.poll(() => handled, { timeout: 10_000 }).toEqual(['finalize-archive {"livestreamId":"fine"}']);
    await expect
      .poll(() => jobOf('finalize-archive', 'missing-id'))
      .toEqual([{ state: 'completed', retry_count: 0, output: { permanentFailure: expect.stringContaining('malformed') } }]);
  });
});
