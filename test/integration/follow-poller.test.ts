import { RE2JS } from 're2js';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { listenForChanges, type ClosableChangeFeed } from '../../src/adapters/db/change-listener.js';
import { createCaptureRepo } from '../../src/adapters/db/capture-repo.js';
import { createFollowRepo } from '../../src/adapters/db/follow-repo.js';
import { createHostPacer } from '../../src/adapters/follows/host-pacer.js';
import type { Follow, FollowRules } from '../../src/core/follows/follow.js';
import { updateFollow } from '../../src/core/follows/update-follow.js';
import type { FollowRepo, FollowSignal } from '../../src/core/follows/ports.js';
import type { Jobs } from '../../src/jobs/jobs.js';
import type { PollerOptions } from '../../src/jobs/loops/follow-poller.js';
import { FOLLOW_NOTIFY_CHANNEL } from '../../src/jobs/runtime/notify-channels.js';
import { createPool } from '../../src/adapters/db/pool.js';
import { noteWorkerSession } from '../../src/adapters/db/worker-session.js';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startJobsWithoutWorkers } from '../support/jobs.js';

// the core's check, watched: the poller must check with it (its tests, check-follow.test.ts, then test what workers run)
vi.mock('../../src/core/follows/check-follow.js', async (importOriginal) => {
  const core = await importOriginal<typeof import('../../src/core/follows/check-follow.js')>();
  return { ...core, checkFollow: vi.fn(core.checkFollow) };
});
// test files share a worker process (decision 0104), so the poller may be loaded already with the
// rule unwatched: it is loaded afresh here, and the modules are forgotten again after this file
vi.resetModules();
const { startFollowPoller } = await import('../../src/jobs/loops/follow-poller.js');
const { checkFollow } = await import('../../src/core/follows/check-follow.js');
afterAll(() => {
  vi.doUnmock('../../src/core/follows/check-follow.js');
  vi.resetModules();
});

// The follow poller of a worker on the real PostgreSQL: it does not claim every second, it sleeps
// until a follow is due. What another process adds or resumes wakes it (migration 0018's
// notifications); the backstop look is an hour away, so a check that comes soon came because of them.
let db: TestDatabase;
let jobs: Jobs;
let wake: ClosableChangeFeed;
/** The running pollers' stop functions (a test may start two, as two workers). */
let pollers: Array<() => Promise<void>>;
/** Another process's follows: the api's, or `kura follow add`'s. */
let elsewhere: FollowRepo;
let closeElsewhere: () => Promise<void>;
/** When the playlist signal was looked at, per follow url; and by which poller. */
let looks: Map<string, number[]>;
let lookers: Map<string, Set<string>>;
let looked: () => void;
/** The worker counts the pollers' pacers were told to share the hosts' rate with, in order. */
let shared: number[];
/** Database sessions standing for workers alive (as each worker's LISTEN connection does). */
let sessions: pg.Client[];

beforeEach(async () => {
  db = await createTestDatabase();
  jobs = await startJobsWithoutWorkers(db.pool);
  const pool = createPool({ connectionString: db.url, max: 2 });
  elsewhere = createFollowRepo(pool);
  closeElsewhere = () => pool.end();
  looks = new Map();
  lookers = new Map();
  looked = () => undefined;
  pollers = [];
  shared = [];
  sessions = [];
  wake = await listenForChanges(db.url, () => undefined, FOLLOW_NOTIFY_CHANNEL);
});
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(pollers.map((stop) => stop()));
  for (const session of sessions) await session.end();
  await wake.close();
  await closeElsewhere();
  await jobs.stop(0);
  await db.drop();
});

/** A worker's poller whose HLS endpoints are looked at every `intervalSeconds` (no jitter); `name` tells its looks apart. */
function startPolling(intervalSeconds: number, more: Partial<PollerOptions> & { name?: string } = {}): () => Promise<void> {
  const { name = 'worker', ...options } = more;
  const unused = () => Promise.reject(new Error('not used: the endpoint lists nothing'));
  // an IN-TEST signal: an HLS endpoint that is offline, each look noted (the real one: hls-endpoint-signal.test.ts)
  const playlist: FollowSignal = {
    name: 'playlist',
    host: () => 'streams.example',
    async look(follow) {
      looks.set(follow.url, [...(looks.get(follow.url) ?? []), Date.now()]);
      lookers.set(follow.url, (lookers.get(follow.url) ?? new Set()).add(name));
      looked();
      return [];
    },
  };
  const pacer = createHostPacer({ requestsPerMinute: 600_000 });
  const stop = startFollowPoller(
    {
      follows: createFollowRepo(db.pool),
      livestreams: db.livestreams,
      captures: createCaptureRepo(db.pool),
      scheduler: jobs,
      source: { recognises: () => true, inspect: unused, check: unused, qualities: unused },
      pacer: { wait: pacer.wait, shareWith: (workers) => (shared.push(workers), pacer.shareWith(workers)) },
      signals: { playlist, feed: playlist, tabs: playlist, holodex: playlist, helix: playlist },
    },
    {
      concurrency: 2,
      policy: { intervals: { feed: 3600, tabs: 3600, holodex: 3600, playlist: intervalSeconds, helix: 3600 }, horizonSeconds: 3600, random: () => 0.5 },
      wake,
      backstopSeconds: 3600,
      onError: (error) => expect.fail(error.message),
      ...options,
    },
  );
  pollers.push(stop);
  return stop;
}

/** Resolves once `url` has been looked at `count` times. */
async function looksAt(url: string, count: number): Promise<number[]> {
  while ((looks.get(url)?.length ?? 0) < count) await new Promise<void>((resolve) => (looked = resolve));
  return looks.get(url) as number[];
}

/** A follow of an HLS endpoint as `kura follow add` writes it: every signal due now. */
function addElsewhere(url: string, rules: Partial<FollowRules> = {}): Promise<Follow> {
  const now = new Date();
  return elsewhere.add({
    id: `f${Math.random().toString(36).slice(2, 12)}`,
    kind: 'hls_endpoint',
    url,
    channelId: null,
    channelName: 'Endpoint',
    title: null,
    rules: { titleInclude: null, titleExclude: null, membersOnly: 'skip', quality: null, ...rules },
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

  it("checks each follow with the core's rule (checkFollow), so what that rule's tests prove is what a worker does", async () => {
    startPolling(1);
    const url = 'https://streams.example/live/core.m3u8';
    const { id } = await addElsewhere(url);
    await looksAt(url, 3);
    const checksOfIt = vi.mocked(checkFollow).mock.calls.filter(([, follow]) => follow.id === id);
    expect(checksOfIt.length).toBeGreaterThanOrEqual(3);
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

describe('the follows a worker holds', () => {
  it('are never checked by two workers: two pollers claiming at once share them out', async () => {
    const urls = Array.from({ length: 6 }, (_, i) => `https://streams.example/live/shared${i}.m3u8`);
    for (const url of urls) await addElsewhere(url);
    startPolling(0.3, { name: 'a', maxHeld: 3 });
    startPolling(0.3, { name: 'b', maxHeld: 3 });
    for (const url of urls) await looksAt(url, 3);
    expect(urls.map((url) => [...lookers.get(url)!])).toEqual(urls.map(() => [expect.stringMatching(/^[ab]$/)]));
    expect(new Set(urls.map((url) => [...lookers.get(url)!][0])).size).toBe(2);
  });

  it('are shared evenly by the workers alive, and a worker that joins gets its share from the others within a renewal', async () => {
    const aliveAs = async (workerId: string) => {
      const session = new pg.Client({ connectionString: db.url });
      await session.connect();
      sessions.push(session);
      await noteWorkerSession(session, workerId);
    };
    const holders = async () =>
      (await db.pool.query<{ n: number }>('select count(*)::int as n from follows where claimed_by is not null group by claimed_by order by 1')).rows.map(
        (r) => r.n,
      );
    const urls = Array.from({ length: 12 }, (_, i) => `https://streams.example/live/fair${i}.m3u8`);
    for (const url of urls) await addElsewhere(url);
    await aliveAs('worker-a');
    await aliveAs('worker-b');
    startPolling(0.5, { name: 'a', leaseSeconds: 3 });
    startPolling(0.5, { name: 'b', leaseSeconds: 3 });
    for (const url of urls) await looksAt(url, 1);
    expect(await holders()).toEqual([6, 6]);
    expect(shared.at(-1)).toBe(2);

    // a third worker: the others let go of what is past their share at their next renewal (every second here)
    await aliveAs('worker-c');
    startPolling(0.5, { name: 'c', leaseSeconds: 3 });
    await expect.poll(holders, { timeout: 5_000 }).toEqual([4, 4, 4]);
    expect(shared.at(-1)).toBe(3);
    // none checked by two at once: each follow's looks since then come from one poller
    const since = new Map(urls.map((url) => [url, looks.get(url)!.length]));
    lookers.clear();
    for (const url of urls) await looksAt(url, (since.get(url) as number) + 2);
    expect(urls.every((url) => lookers.get(url)!.size === 1)).toBe(true);
  });

  it('are taken over from a worker that stopped without letting them go, as soon as its lease ran out (not at the backstop)', async () => {
    const url = 'https://streams.example/live/orphan.m3u8';
    const { id } = await addElsewhere(url);
    // a worker claimed it for 2 s, then crashed: it never renews, never lets go
    const claimedAt = Date.now();
    expect((await elsewhere.claim('crashed', new Date(claimedAt), 2, 10)).follows.map((f) => f.id)).toEqual([id]);
    startPolling(3600, { backstopSeconds: 3600 });
    const [first] = await looksAt(url, 1);
    expect(first! - claimedAt).toBeGreaterThanOrEqual(2000);
    expect(first! - claimedAt).toBeLessThan(3500);
  });

  it('writes nothing when an off-air look follows an off-air look, and writes the looks’ times when it stops', async () => {
    const url = 'https://streams.example/live/quiet.m3u8';
    const { id } = await addElsewhere(url);
    const stop = startPolling(0.2, { writeLooksSeconds: 3600 });
    const row = async () =>
      (await db.pool.query<{ xmin: string; last_checked_at: Date | null }>('select xmin, last_checked_at from follows where id = $1', [id])).rows[0]!;
    await looksAt(url, 1);
    // the first check is written: it is the follow's first
    await vi.waitFor(async () => expect((await row()).last_checked_at).not.toBeNull());
    const written = await row();
    const seen = await looksAt(url, 5);
    expect(await row()).toEqual(written); // the same row version: not written since
    await stop();
    const stopped = await row();
    expect(stopped.last_checked_at!.getTime()).toBeGreaterThanOrEqual(seen[3]!);
  });

  it('have their title rules compiled once, not at every look, and once more when an admin changes them', async () => {
    // the probe's HLS follow with a long rule blocked the event loop 0.3–1.25 s at every look, compiling it again
    const compiled = vi.spyOn(RE2JS, 'compile');
    const compiles = (pattern: string) => compiled.mock.calls.filter(([compiling]) => compiling === pattern).length;
    const url = 'https://streams.example/live/ruled.m3u8';
    const { id } = await addElsewhere(url, { titleExclude: 'rerun' });
    startPolling(0.2);
    await looksAt(url, 2);
    expect(compiles('rerun')).toBe(1);
    await looksAt(url, 6);
    expect(compiles('rerun')).toBe(1);
    await updateFollow({ follows: elsewhere }, { id, change: { titleExclude: 'replay' }, now: new Date() });
    // checked once as the admin's edit, then compiled once by the worker that read the follow again
    await vi.waitFor(() => expect(compiles('replay')).toBe(2), { timeout: 5000 });
    await looksAt(url, looks.get(url)!.length + 4);
    expect(compiles('replay')).toBe(2);
    expect(compiles('rerun')).toBe(1);
  });

  it('stops checking a follow removed elsewhere', async () => {
    const gone = 'https://streams.example/live/gone.m3u8';
    const stays = 'https://streams.example/live/stays.m3u8';
    const { id } = await addElsewhere(gone);
    await addElsewhere(stays);
    startPolling(0.2);
    await looksAt(gone, 2);
    await elsewhere.remove(id);
    const removedAt = Date.now();
    const count = looks.get(stays)!.length;
    await looksAt(stays, count + 4); // 0.8 s on, the other follow still looked at
    // at most a look begun before the removal was heard of
    expect(looks.get(gone)!.filter((at) => at >= removedAt).length).toBeLessThanOrEqual(1);
  });
});
