import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listenForChanges, type ClosableChangeFeed } from '../../src/adapters/db/change-listener.js';
import { createCaptureRepo } from '../../src/adapters/db/capture-repo.js';
import { createFollowRepo } from '../../src/adapters/db/follow-repo.js';
import { createHostPacer } from '../../src/adapters/follows/host-pacer.js';
import type { Follow } from '../../src/core/follows/follow.js';
import { updateFollow } from '../../src/core/follows/update-follow.js';
import type { FollowRepo, FollowSignal } from '../../src/core/follows/ports.js';
import type { Jobs } from '../../src/jobs/jobs.js';
import { startFollowPoller } from '../../src/jobs/loops/follow-poller.js';
import { FOLLOW_NOTIFY_CHANNEL } from '../../src/jobs/notify-channels.js';
import { createPool } from '../../src/adapters/db/pool.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startJobsWithoutWorkers } from '../support/jobs.js';

// The follow poller of a worker on the real PostgreSQL: it does not claim every second, it sleeps
// until a follow is due. What another process adds or resumes wakes it (migration 0018's
// notifications); the backstop look is an hour away, so a check that comes soon came because of them.
let db: TestDatabase;
let jobs: Jobs;
let wake: ClosableChangeFeed;
let stopPolling: (() => Promise<void>) | null;
/** Another process's follows: the api's, or `kura follow add`'s. */
let elsewhere: FollowRepo;
let closeElsewhere: () => Promise<void>;
/** When the playlist signal was looked at, per follow url. */
let looks: Map<string, number[]>;
let looked: () => void;

beforeEach(async () => {
  db = await createTestDatabase();
  jobs = await startJobsWithoutWorkers(db.url);
  const pool = createPool({ connectionString: db.url, max: 2 });
  elsewhere = createFollowRepo(pool);
  closeElsewhere = () => pool.end();
  looks = new Map();
  looked = () => undefined;
  stopPolling = null;
  wake = await listenForChanges(db.url, () => undefined, FOLLOW_NOTIFY_CHANNEL);
});
afterEach(async () => {
  await stopPolling?.();
  await wake.close();
  await closeElsewhere();
  await jobs.stop(0);
  await db.drop();
});

/** A worker's poller whose HLS endpoints are looked at every `intervalSeconds` (no jitter). */
function startPolling(intervalSeconds: number): void {
  const unused = () => Promise.reject(new Error('not used: the endpoint lists nothing'));
  // an IN-TEST signal: an HLS endpoint that is offline, each look noted (the real one: hls-endpoint-signal.test.ts)
  const playlist: FollowSignal = {
    name: 'playlist',
    host: () => 'streams.example',
    async look(follow) {
      looks.set(follow.url, [...(looks.get(follow.url) ?? []), Date.now()]);
      looked();
      return [];
    },
  };
  stopPolling = startFollowPoller(
    {
      follows: createFollowRepo(db.pool),
      livestreams: db.livestreams,
      captures: createCaptureRepo(db.pool),
      scheduler: jobs,
      source: { recognises: () => true, inspect: unused, check: unused, qualities: unused },
      pacer: createHostPacer({ requestsPerMinute: 600_000 }),
      signals: { playlist, feed: playlist, tabs: playlist, holodex: playlist },
    },
    {
      concurrency: 2,
      policy: { intervals: { feed: 3600, tabs: 3600, holodex: 3600, playlist: intervalSeconds }, horizonSeconds: 3600, random: () => 0.5 },
      wake,
      backstopSeconds: 3600,
      onError: (error) => expect.fail(error.message),
    },
  );
}

/** Resolves once `url` has been looked at `count` times. */
async function looksAt(url: string, count: number): Promise<number[]> {
  while ((looks.get(url)?.length ?? 0) < count) await new Promise<void>((resolve) => (looked = resolve));
  return looks.get(url) as number[];
}

/** A follow of an HLS endpoint as `kura follow add` writes it: every signal due now. */
function addElsewhere(url: string): Promise<Follow> {
  const now = new Date();
  return elsewhere.add({
    id: `f${Math.random().toString(36).slice(2, 12)}`,
    kind: 'hls_endpoint',
    url,
    channelId: null,
    channelName: 'Endpoint',
    title: null,
    rules: { titleInclude: null, titleExclude: null, membersOnly: 'skip', quality: null },
    createdBy: 'local/admin',
    createdAt: now,
    signals: [{ signal: 'playlist', lastCheckedAt: null, lastOkAt: null, lastError: null, lastErrorAt: null, nextCheckAt: now }],
  });
}

describe('the follow poller', () => {
  it('checks a follow another process adds at once, then again when its next check comes due', async () => {
    startPolling(1.5);
    const url = 'https://streams.example/live/a.m3u8';
    const addedAt = Date.now();
    await addElsewhere(url);
    const [first, second] = await looksAt(url, 2);
    expect(first! - addedAt).toBeLessThan(2000);
    // the next check is the signal's interval later (no jitter): slept until then, not polled
    expect(second! - first!).toBeGreaterThanOrEqual(1400);
    expect(second! - first!).toBeLessThan(2500);
  });

  it('checks at once a follow another process resumes, though its next check was an hour away', async () => {
    startPolling(3600);
    const url = 'https://streams.example/live/b.m3u8';
    const follow = await addElsewhere(url);
    await looksAt(url, 1);
    await updateFollow({ follows: elsewhere }, { id: follow.id, change: { paused: true }, now: new Date() });
    const resumedAt = Date.now();
    await updateFollow({ follows: elsewhere }, { id: follow.id, change: { paused: false }, now: new Date() });
    const [, again] = await looksAt(url, 2);
    expect(again! - resumedAt).toBeLessThan(2000);
  });
});
