import Fastify from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCaptureRepo } from '../../src/adapters/db/capture-repo.js';
import { createSweepRepo } from '../../src/adapters/db/sweep-repo.js';
import { importLivestreams } from '../../src/core/records/import-livestreams.js';
import type { CaptureRepo } from '../../src/core/capture/ports.js';
import { sweepLifecycle, type SweepDeps } from '../../src/core/record-actions/sweep-lifecycle.js';
import { installMetrics } from '../../src/http/metrics.js';
import type { Jobs } from '../../src/jobs/jobs.js';
import { startJobs } from '../../src/wiring/jobs.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { buildRecord } from '../support/factories.js';

// The lifecycle sweep on a real PostgreSQL and real pg-boss: records with nothing behind their
// state are repaired, said in their encoder log and counted for /metrics; a second sweep finds
// nothing more to do.
let db: TestDatabase;
let jobs: Jobs;
let captures: CaptureRepo;
let deps: SweepDeps;
const POLICY = { neverLiveSeconds: 12 * 3600, leaseSeconds: 60, batch: 100 };

beforeEach(async () => {
  db = await createTestDatabase();
  jobs = await startJobs({ pool: db.pool, onError: () => undefined });
  captures = createCaptureRepo(db.pool);
  deps = { livestreams: db.livestreams, captures, scheduler: jobs, jobs, sweep: createSweepRepo(db.pool) };
});
afterEach(async () => {
  await jobs.stop(1000);
  await db.drop();
});

async function record(id: string, status: 'upcoming' | 'live', scheduledStart: Date): Promise<void> {
  await db.livestreams.upsertMany([
    {
      id,
      platform: 'hls',
      sourceUrl: `http://127.0.0.1:9/${id}.m3u8`,
      status,
      failureReason: null,
      title: id,
      channelName: 'c',
      channelId: 'c',
      thumbnailUrl: null,
      scheduledStart,
      startedAt: status === 'live' ? scheduledStart : null,
      endedAt: null,
      archive: null,
      submitters: ['cli/test'],
      requestedQuality: null,
    },
  ]);
}

/** A live record whose worker vanished `secondsAgo` seconds ago, in the middle of `state`. */
async function abandoned(id: string, state: 'capturing' | 'ended', secondsAgo: number): Promise<void> {
  await record(id, 'live', new Date());
  await captures.claim(id, 'vanished-worker', 30);
  if (state === 'ended') await captures.end(id, 'endlist');
  await db.pool.query(`update captures set heartbeat_at = now() - make_interval(secs => $2) where livestream_id = $1`, [id, secondsAgo]);
}

const queued = async (name: string) =>
  (await db.pool.query(`select singleton_key from pgboss.job where name = $1 and state = 'created' order by singleton_key`, [name])).rows.map(
    (r) => r.singleton_key,
  );

describe('the lifecycle sweep', () => {
  it('resumes live records whose worker vanished, and leaves one whose lease is fresh', async () => {
    await abandoned('recording', 'capturing', 600);
    await abandoned('remuxing', 'ended', 600);
    await abandoned('busy', 'capturing', 5); // its worker renewed the lease 5 s ago
    const repairs = await sweepLifecycle(deps, POLICY, new Date());
    expect(repairs).toEqual([
      { id: 'remuxing', action: 'finalize' },
      { id: 'recording', action: 'capture' },
    ]);
    expect(await queued('capture-stream')).toEqual(['recording']);
    expect(await queued('finalize-archive')).toEqual(['remuxing']);
    expect(await captures.readLog('recording')).toContain('[kura] sweep: no worker was recording this live stream; resuming the capture');
    // the jobs it queued are what is behind them now: another sweep (another worker's) does nothing
    expect(await sweepLifecycle(deps, POLICY, new Date())).toEqual([]);
  });

  it('fails an upcoming record past its deadline that nothing watches, and watches one before it again', async () => {
    const now = new Date();
    await record('overdue', 'upcoming', new Date(now.getTime() - 13 * 3600_000));
    await record('watched-overdue', 'upcoming', new Date(now.getTime() - 13 * 3600_000));
    await jobs.watch('watched-overdue'); // its watch asks the source first, then decides
    await record('tonight', 'upcoming', new Date(now.getTime() + 6 * 3600_000));
    const repairs = await sweepLifecycle(deps, POLICY, now);
    expect(repairs).toEqual([
      { id: 'overdue', action: 'fail' },
      { id: 'tonight', action: 'watch' },
    ]);
    expect(await db.livestreams.findById('overdue')).toMatchObject({
      status: 'failed',
      failureReason: 'No stream appeared within 12 h of the scheduled start (nothing was watching it any more).',
    });
    expect((await db.livestreams.findById('watched-overdue'))?.status).toBe('upcoming');
    expect(await queued('watch-stream')).toEqual(['tonight', 'watched-overdue']);
    expect(await captures.readLog('overdue')).toMatch(/\[kura\] failed: No stream appeared within 12 h/);
    expect(await sweepLifecycle(deps, POLICY, now)).toEqual([]);
  });

  it('fails records imported as upcoming years ago (an import made without the deadline, as before this release)', async () => {
    await importLivestreams(db, [buildRecord({ id: 'karaoke2019', finished: false, scheduledStart: '2019-05-01T18:00:00Z' })]);
    expect(await sweepLifecycle(deps, POLICY, new Date())).toEqual([{ id: 'karaoke2019', action: 'fail' }]);
    expect((await db.livestreams.listQueue(10)).map((r) => r.id)).toEqual([]);
  });

  it('counts its repairs for /metrics, across processes (in PostgreSQL)', async () => {
    await abandoned('recording', 'capturing', 600);
    await record('overdue', 'upcoming', new Date(Date.now() - 13 * 3600_000));
    await sweepLifecycle(deps, POLICY, new Date());
    const app = Fastify();
    installMetrics(app, { lifecycleRepairs: createSweepRepo(db.pool).repairCounts });
    const metrics = (await app.inject({ url: '/metrics' })).body;
    await app.close();
    expect(metrics).toContain('# TYPE kura_sweep_repairs_total counter');
    expect(metrics).toContain('kura_sweep_repairs_total{action="capture"} 1');
    expect(metrics).toContain('kura_sweep_repairs_total{action="fail"} 1');
    expect(metrics).toContain('kura_sweep_repairs_total{action="watch"} 0');
  });

  it('has something to look at only while a record is upcoming, live or being taken down (an idle archive’s sweep is one read)', async () => {
    const sweep = createSweepRepo(db.pool);
    expect(await sweep.anythingToSweep()).toBe(false);
    await record('soon', 'upcoming', new Date(Date.now() + 3600_000));
    expect(await sweep.anythingToSweep()).toBe(true);
    await db.pool.query(`update livestreams set status = 'live', started_at = now() where id = 'soon'`);
    expect(await sweep.anythingToSweep()).toBe(true);
    await db.pool.query(`update livestreams set status = 'failed', failure_reason = 'gone' where id = 'soon'`);
    expect(await sweep.anythingToSweep()).toBe(false);
    await db.pool.query(`update livestreams set takedown_requested_at = now(), takedown_admin = 'local/admin', takedown_reason = 'asked' where id = 'soon'`);
    expect(await sweep.anythingToSweep()).toBe(true);
  });

  it('runs one sweep at a time across workers: one begun while another runs is skipped, the next runs, a failed one lets go', async () => {
    const mine = createSweepRepo(db.pool);
    const theirs = createSweepRepo(db.pool); // each sweep holds the lock on a connection of its own, as another process would
    let finish!: () => void;
    let begun!: () => void;
    const running = new Promise<void>((resolve) => (begun = resolve));
    const first = mine.alone(() => {
      begun();
      return new Promise<void>((resolve) => (finish = resolve));
    });
    await running;
    const ran: string[] = [];
    await theirs.alone(async () => void ran.push('during'));
    finish();
    await first;
    await expect(theirs.alone(async () => Promise.reject(new Error('the database went away mid-sweep')))).rejects.toThrow('the database went away mid-sweep');
    await mine.alone(async () => void ran.push('after'));
    expect(ran).toEqual(['after']);
  });
});
