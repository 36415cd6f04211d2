import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { ChangeFeed } from '../../src/shared/change-feed.js';
import { startBackgroundWork } from '../../src/jobs/background.js';
import { JOB_SCHEDULES } from '../../src/jobs/catalogue.js';
import { LOOP_CHANNELS, LOOPS } from '../../src/jobs/loop-catalogue.js';
import { FRAME_REQUESTS_CHANNEL, JOB_NOTIFY_CHANNEL, WEBHOOK_EVENTS_CHANNEL } from '../../src/jobs/runtime/notify-channels.js';
import type { WorkerContext } from '../../src/jobs/worker-context.js';

// src/jobs/catalogue.ts is the one list of what runs in the background: every loop there, each
// with what wakes it, and a worker starts exactly those (on the channels they name) and nothing else.
const ROOT = path.resolve(import.meta.dirname, '..', '..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** A change feed the test notifies by hand. */
function fakeFeed(): ChangeFeed & { notify(payload?: string): void } {
  const listeners: Array<(payload?: string) => void> = [];
  return { connected: true, onChange: (listener) => void listeners.push(listener), notify: (payload) => listeners.forEach((l) => l(payload)) };
}

/** A worker's parts, each a stub that writes down what it is asked. */
function stubWorker() {
  const calls: string[] = [];
  const feeds = new Map<string, ReturnType<typeof fakeFeed>>();
  const asked = async <T>(call: string, value: T) => (calls.push(call), value);
  const jobs = {
    work: (_handlers: unknown, _hooks: unknown, options: { wake: ChangeFeed; backstopSeconds: number; maxCaptures: number }) =>
      calls.push(`work ${options.backstopSeconds}s ${options.maxCaptures} ${options.wake === feeds.get(JOB_NOTIFY_CHANNEL) ? 'on kura_jobs' : 'elsewhere'}`),
    pause: () => calls.push('pause'),
    startClock: (schedules: unknown) => (calls.push(`clock ${schedules === JOB_SCHEDULES}`), () => calls.push('clock stopped')),
    maintain: () => asked('maintain', undefined),
    deliverWebhooks: () => asked('deliverWebhooks', undefined),
    indexRecords: () => asked('indexRecords', undefined),
  };
  const context = {
    deps: {
      captures: { leases: () => asked('leases', { stale: [], nextStaleInMs: null }), compactLeftovers: () => asked('compactLeftovers', 0) },
      sweep: { anythingToSweep: () => asked('anythingToSweep', true), alone: () => asked('sweep', undefined) },
    },
    settings: { workerId: 'test', staleAfterSeconds: 30, unreachableSeconds: 600, watch: { pollSeconds: 60, neverLiveSeconds: 3600 } },
    timing: { maxCaptures: 2, backstopSeconds: 77 },
    log: { info: () => undefined, warn: (_fields: object, message: string) => calls.push(`warn ${message}`) },
    jobs,
    follows: {
      deps: {
        follows: {
          sharing: async () => ({ workers: 1, follows: 0 }),
          claim: () => asked('claim', { follows: [], nextLeaseEnd: null }),
          release: () => asked('release', undefined),
        },
        pacer: { wait: async () => undefined, shareWith: () => undefined },
      },
      concurrency: 1,
      policy: {},
    },
    purger: { purgeExpired: () => asked('purgeExpired', 0) },
    webhooks: { deps: { webhooks: { prune: () => asked('prune', 0) } }, drains: jobs },
    search: () => asked('search drain', []),
  } as unknown as WorkerContext;
  const connections: string[][] = [];
  /** Opens a fake LISTEN connection for `channels`, writing down which it was asked for and when it closes. */
  const listen = async (channels: readonly string[]) => {
    connections.push([...channels]);
    for (const channel of channels) feeds.set(channel, fakeFeed());
    return {
      feed: (channel: string) => feeds.get(channel) as ChangeFeed,
      close: async () => void calls.push(`closed ${channels.join(',')}`),
    };
  };
  return { calls, feeds, context, listen, connections };
}

describe('the catalogue of background work', () => {
  it('lists every loop a worker runs, each with what wakes it', () => {
    expect(Object.keys(LOOPS)).toEqual([
      'search-sync',
      'webhook-wake-up',
      'prune-webhook-history',
      'purge-expired',
      'spool-report',
      'lifecycle-sweep',
      'ytdlp-update',
      'scheduled-backup',
      'capture-watchdog',
      'frame-requests',
      'follow-poller',
      'twitch-eventsub',
      'job-maintenance',
      'job-clock',
      'job-runners',
    ]);
    for (const [name, loop] of Object.entries(LOOPS)) {
      const { channel, everySeconds, schedules } = loop.wakeUp as { channel: string | null; everySeconds: unknown; schedules?: unknown[] };
      expect(channel !== null || everySeconds !== null || (schedules?.length ?? 0) > 0, name).toBe(true);
      expect(loop.purpose.length, name).toBeGreaterThan(10);
    }
  });

  it('names only channels a trigger notifies: a migration, or the job queue (the trigger the queue adapter puts on pg-boss); the frame requests, which the api sends', () => {
    const migrations = readdirSync(path.join(ROOT, 'migrations'))
      .map((file) => read(path.join('migrations', file)))
      .join('\n');
    for (const channel of LOOP_CHANNELS) {
      if (channel === JOB_NOTIFY_CHANNEL) expect(read('src/wiring/jobs.ts')).toContain('notifyChannel: JOB_NOTIFY_CHANNEL');
      else if (channel === FRAME_REQUESTS_CHANNEL) expect(read('src/adapters/db/frame-repo.ts')).toContain(`pg_notify('${channel}', $1)`);
      else expect(migrations, channel).toContain(`pg_notify('${channel}'`);
    }
  });

  it('is all that runs: the composition root opens the LISTEN connections, but starts no timer and hears no notification itself', () => {
    const files = ['src/main.ts', ...readdirSync(path.join(ROOT, 'src/wiring')).map((file) => `src/wiring/${file}`)];
    for (const file of files) expect(read(file), file).not.toMatch(/setInterval\(|setTimeout\(|\.onChange\(/);
  });
});

describe("a worker's background work", () => {
  it('starts every loop of the catalogue, each woken as it declares, and listens to exactly their channels', async () => {
    const { calls, feeds, context, listen, connections } = stubWorker();
    const stop = await startBackgroundWork(context, listen);
    // every channel on one connection (the connection budget)
    expect(connections).toEqual([LOOP_CHANNELS]);
    expect([...feeds.keys()].sort()).toEqual([...LOOP_CHANNELS].sort());
    // each loop looks once at start
    await vi.waitFor(() => {
      for (const call of [
        'search drain',
        'deliverWebhooks',
        'prune',
        'purgeExpired',
        'sweep',
        'leases',
        'claim',
        'maintain',
        'clock true',
        'work 77s 2 on kura_jobs',
      ])
        expect(calls).toContain(call);
    });
    calls.length = 0;
    feeds.get(WEBHOOK_EVENTS_CHANNEL)!.notify('');
    await vi.waitFor(() => expect(calls).toEqual(['deliverWebhooks']));

    calls.length = 0;
    await stop();
    // the job runners take no new job first, then the others stop; the connections close last
    expect(calls.slice(0, 2)).toEqual(['pause', 'clock stopped']);
    expect(calls.filter((call) => call.startsWith('closed'))).toEqual([`closed ${LOOP_CHANNELS.join(',')}`]);
    expect(calls.at(-1)).toMatch(/^closed /);
    calls.length = 0;
    feeds.get(WEBHOOK_EVENTS_CHANNEL)!.notify('');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(calls).toEqual([]);
  });
});
