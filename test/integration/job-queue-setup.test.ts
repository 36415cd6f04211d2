import { describe, expect, it } from 'vitest';
import { createPool } from '../../src/adapters/db/pool.js';
import type { Jobs } from '../../src/jobs/jobs.js';
import { createTestDatabase } from '../support/database.js';
import { startJobsWithoutWorkers } from '../support/jobs.js';

// A first `kura serve` starts the api's job queue and its worker thread's at once, on a database
// pg-boss has never seen, as the processes of a scale-out may: one created a queue (a partition)
// while the other created the job trigger (which locks every partition), and PostgreSQL ended one
// of them as a deadlock (the bench's first start died of it). Each setup now waits for the other.
describe('job queues set up at once on a fresh database', () => {
  it('all start, whichever order their statements meet in', async () => {
    for (let round = 0; round < 3; round++) {
      const db = await createTestDatabase({ jobQueue: false });
      // four processes: a pool each
      const pools = Array.from({ length: 4 }, () => createPool({ connectionString: db.url, max: 3 }));
      const started = await Promise.allSettled(pools.map((pool) => startJobsWithoutWorkers(pool)));
      const failures = started.flatMap((s) => (s.status === 'rejected' ? [String(s.reason)] : []));
      await Promise.all(started.flatMap((s) => (s.status === 'fulfilled' ? [(s.value as Jobs).stop(0)] : [])));
      await Promise.all(pools.map((pool) => pool.end()));
      await db.drop();
      expect(failures).toEqual([]);
    }
  });
});
