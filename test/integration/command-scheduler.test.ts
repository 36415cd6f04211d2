import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listenForChannels } from '../../src/adapters/db/change-listener.js';
import { JOB_NOTIFY_CHANNEL } from '../../src/jobs/runtime/notify-channels.js';
import { startJobs } from '../../src/wiring/jobs.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { queuedJobs } from '../support/jobs.js';

// A CLI command's job queue (`kura archive`): it only sends, on the command's own connection,
// and makes nothing of pg-boss's when a server made it already; on a database no server has
// started on, it makes the queues and the trigger itself, so the job waits for the first worker.
let db: TestDatabase;
beforeEach(async () => {
  db = await createTestDatabase({ jobQueue: false }); // what makes the queues, and when, is the subject
});
afterEach(() => db.drop());

const onError = (error: Error) => expect.fail(error.message);

describe("a CLI command's job queue", () => {
  it('sends a watch that wakes the workers, on the command’s connection and making nothing, once a server made the queues', async () => {
    const server = await startJobs({ pool: db.pool, onError });
    await server.stop(1000);
    // a policy as an operator's older release left it: a server's start would set it again, a command leaves it
    await db.pool.query("update pgboss.queue set retry_limit = 7 where name = 'watch-stream'");
    const feeds = await listenForChannels(db.url, () => undefined, [JOB_NOTIFY_CHANNEL]);
    const woken = new Promise<string | undefined>((resolve) => feeds.feed(JOB_NOTIFY_CHANNEL).onChange((payload) => payload !== undefined && resolve(payload)));
    const command = await startJobs({ pool: db.pool, onError, sendOnly: true });
    try {
      await command.watch('hls-abc');
      expect(await woken).toMatch(/^watch-stream -?\d+$/);
      expect((await queuedJobs(db, 'watch-stream', 'hls-abc')).map((job) => job.state)).toEqual(['created']);
      const { rows } = await db.pool.query("select retry_limit as n from pgboss.queue where name = 'watch-stream'");
      expect(rows[0].n).toBe(7);
    } finally {
      await command.stop(1000);
      await feeds.close();
    }
  });

  it('makes the queues and the trigger itself on a database no server has started on', async () => {
    const command = await startJobs({ pool: db.pool, onError, sendOnly: true });
    try {
      await command.watch('hls-first');
      expect((await queuedJobs(db, 'watch-stream', 'hls-first')).map((job) => job.state)).toEqual(['created']);
      const { rows } = await db.pool.query("select count(*) as n from pg_trigger where tgname = 'kura_job_notify' and tgparentid = 0");
      expect(rows[0].n).toBe(1);
    } finally {
      await command.stop(1000);
    }
  });
});
