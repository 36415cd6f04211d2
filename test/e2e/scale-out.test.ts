import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runKura, spawnKura, type KuraProcess } from '../support/cli.js';
import { createTestDatabase, limitedOwner, type TestDatabase } from '../support/database.js';
import { startHlsEndpointFixture } from '../support/hls-endpoint-fixture.js';
import { probe, SEGMENT_REQUEST, startHlsFixture } from '../support/hls-fixture.js';
import { waitForFollowRecords, waitForRecord } from '../support/records.js';
import { startS3, type TestS3 } from '../support/s3.js';

// Api and worker processes, each its own `kura serve` with its own data directory (as on separate
// machines), sharing one PostgreSQL database and one S3 store (s3rver), as a scaled-out instance
// runs; they connect as a role PostgreSQL allows no more connections than README's budget says.

/**
 * The connection budget (README "Scaling out") at KURA_DB_POOL_MAX=4: an api holds at most its
 * pool, its search thread's 3 and one LISTEN connection; a worker its pool and one LISTEN
 * connection; a command its pool.
 */
const POOL_MAX = 4;
const BUDGET = { api: POOL_MAX + 4, worker: POOL_MAX + 1, command: POOL_MAX };
/** What two api processes, four workers and a command use at most. */
const INSTANCE_BUDGET = 2 * BUDGET.api + 4 * BUDGET.worker + BUDGET.command;

let db: TestDatabase;
let owner: { url: string; drop(): Promise<void> };
let cwd: string;
let s3: TestS3;
const fixtures: Array<{ close(): Promise<void> }> = [];
const processes: KuraProcess[] = [];

beforeEach(async () => {
  db = await createTestDatabase({ migrated: false }); // the processes migrate it, as its owner
  owner = await limitedOwner(db, INSTANCE_BUDGET + 2);
  cwd = await mkdtemp(path.join(os.tmpdir(), 'kura-scale-'));
  await chmod(cwd, 0o755);
  s3 = await startS3();
});
afterEach(async () => {
  await stopAll();
  for (const fixture of fixtures.splice(0)) await fixture.close();
  await s3.stop();
  await db.drop();
  await owner.drop();
});

/** Kills every process still running; resolves with what each printed. */
async function stopAll(): Promise<string[]> {
  const printed: string[] = [];
  for (const kura of processes.splice(0)) {
    kura.child.kill('SIGKILL');
    const { stdout, stderr } = await kura.exited;
    printed.push(stdout + stderr);
  }
  return printed;
}

const ENV = {
  KURA_DB_POOL_MAX: String(POOL_MAX),
  KURA_ALLOW_PRIVATE_SOURCES: 'true', // the fixtures live on 127.0.0.1
};

function start(role: 'api' | 'worker'): KuraProcess {
  const kura = spawnKura(
    ['serve'],
    {
      ...s3.env,
      ...ENV,
      DATABASE_URL: owner.url,
      // a disk of its own: what a capture had not uploaded is not on the next worker's disk
      KURA_DATA_DIR: path.join(cwd, `${role}-${processes.length}`),
      KURA_SPOOL_CHUNK_MB: '1',
      KURA_ROLE: role,
      PORT: '0',
      LOG_LEVEL: 'info',
      KURA_MAX_CAPTURES: '1', // so streams at once need as many workers
      KURA_WATCH_POLL_SECONDS: '0.5',
      KURA_FOLLOW_POLL_SECONDS: '1',
      KURA_CAPTURE_OFFLINE_SECONDS: '2',
      KURA_CAPTURE_STALE_SECONDS: '4',
      KURA_CAPTURE_IDLE_SECONDS: '8',
      KURA_MIN_FREE_DISK_MB: '10',
      KURA_WORKER_PORT: '0', // each worker's /healthz and /metrics, on a free port
    },
    cwd,
  );
  processes.push(kura);
  return kura;
}

const command = async (args: string[]) => {
  const result = await runKura(args, { ...ENV, DATABASE_URL: owner.url, KURA_DATA_DIR: path.join(cwd, 'cli') }, cwd);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout;
};

/** The most connections the role held at once while `during` ran, looked at every 100 ms. */
async function peakConnections<T>(during: () => Promise<T>): Promise<{ result: T; peak: number }> {
  const role = new URL(owner.url).username;
  let peak = 0;
  let running = true;
  const sampling = (async () => {
    while (running) {
      const { rows } = await db.pool.query<{ n: number }>('select count(*)::int as n from pg_stat_activity where usename = $1', [role]);
      peak = Math.max(peak, rows[0]?.n ?? 0);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  try {
    return { result: await during(), peak };
  } finally {
    running = false;
    await sampling;
  }
}

async function archive(url: string): Promise<string> {
  return /kura: (\S+) is/.exec(await command(['archive', url]))?.[1] as string;
}

const workerOf = async (id: string) =>
  (await db.pool.query<{ worker_id: string | null }>('select worker_id from captures where livestream_id = $1', [id])).rows[0]?.worker_id ?? null;

/** A worker's /metrics: each sample by its name and labels. */
async function scrape(statusUrl: string): Promise<Map<string, number>> {
  const response = await fetch(`${statusUrl}/metrics`);
  expect(response.status).toBe(200);
  const samples = (await response.text()).split('\n').filter((line) => line !== '' && !line.startsWith('#'));
  return new Map(samples.map((line) => [line.slice(0, line.lastIndexOf(' ')), Number(line.slice(line.lastIndexOf(' ') + 1))]));
}

/** The worker holding the record's capture, once one does. */
async function waitForHolder(id: string): Promise<string> {
  await expect.poll(() => workerOf(id), { timeout: 20_000 }).not.toBeNull();
  return (await workerOf(id)) as string;
}

/**
 * Seven processes and a live stream: 40 s alone, but past the suite's 120-s limit while three
 * other end-to-end files (browsers among them) share the two cores; the limit is for a hang.
 */
const SCALE_OUT = { timeout: 300_000 };

describe('a scaled-out instance', SCALE_OUT, () => {
  it('spreads captures and a follow over four workers within its connection budget, serves their logs from either api, and moves a killed worker’s capture to another', async () => {
    const { peak } = await peakConnections(async () => {
      const firstApi = start('api');
      const apiUrl = (await firstApi.waitForLog((l) => l.msg === 'kura api listening')).url as string; // it migrated the database
      const secondApi = start('api');
      const workers = [start('worker'), start('worker'), start('worker'), start('worker')];
      const otherApiUrl = (await secondApi.waitForLog((l) => l.msg === 'kura api listening')).url as string;
      const ready = await Promise.all(workers.map((w) => w.waitForLog((l) => l.msg === 'kura worker ready')));
      const workerIds = ready.map((line) => line.workerId as string);
      const statusUrls = ready.map((line) => line.statusUrl as string);

      const endpoint = await startHlsEndpointFixture();
      const long = await startHlsFixture({ seconds: 30, bitrate: '2M', constantBitrate: true }); // a 1 MiB chunk every ~4 s
      const short = await startHlsFixture({ seconds: 12 });
      fixtures.push(endpoint, long, short);
      await endpoint.goOffline();
      const followId = (await command(['follow', 'add', endpoint.url, '--channel', 'Karaoke night'])).trim();
      const longId = await archive(long.url);
      const shortId = await archive(short.url);
      const encoded = [long.start(), short.start()];
      const broadcast = endpoint.broadcast({ seconds: 12 });
      const followedId = ((await waitForFollowRecords(db.url, followId, 1))[0] as { id: string }).id;
      await Promise.all([longId, shortId, followedId].map((id) => waitForRecord(db.url, id, (r) => r.status === 'live')));
      await Promise.all([long.seen(SEGMENT_REQUEST, 3), short.seen(SEGMENT_REQUEST, 3)]);

      // one capture on each of three workers, and either api (which records nothing) serves the logs
      const holders = await Promise.all([longId, shortId, followedId].map((id) => waitForHolder(id)));
      expect(new Set(holders).size).toBe(3);
      for (const holder of holders) expect(workerIds).toContain(holder);
      for (const [id, url] of [
        [longId, apiUrl],
        [shortId, otherApiUrl],
      ] as const) {
        const log = await fetch(`${url}/api/logz?id=${id}`);
        expect(log.status).toBe(200);
        expect(await log.text()).toContain('[kura] recording');
      }

      // each worker reports what it does: the long stream's holder one capture and its bytes, the follow held by one, the queues' backlog
      const scrapes = await Promise.all(statusUrls.map(scrape));
      const longHolder = scrapes[workerIds.indexOf(holders[0] as string)] as Map<string, number>;
      expect(longHolder.get('kura_captures_active')).toBe(1);
      expect(longHolder.get('kura_capture_bytes_total')).toBeGreaterThan(100_000); // a 2 Mbit/s segment at least
      expect(longHolder.get('kura_jobs_waiting{queue="capture-stream"}')).toBe(0);
      expect(longHolder.get('kura_webhook_deliveries_total{result="delivered"}')).toBe(0);
      expect(scrapes.map((s) => s.get('kura_captures_active')).sort()).toEqual([0, 1, 1, 1]);
      expect(scrapes.reduce((sum, s) => sum + (s.get('kura_follows_held') as number), 0)).toBe(1);
      expect(await fetch(`${statusUrls[0]}/healthz`).then((r) => r.json())).toEqual({ status: 'ok', workerId: workerIds[0] });

      // kill the worker recording the long stream: a free one takes it over
      await long.seen(SEGMENT_REQUEST, 8);
      const victim = workers[workerIds.indexOf(holders[0] as string)] as KuraProcess;
      victim.child.kill('SIGKILL');
      await victim.exited;
      await Promise.all(encoded);
      await broadcast.fetchedAll();
      await endpoint.goOffline();
      const [longDone, shortDone, followedDone] = await Promise.all(
        [longId, shortId, followedId].map((id) => waitForRecord(db.url, id, (r) => r.status === 'finished' || r.status === 'failed')),
      );
      expect(shortDone?.status, shortDone?.failure_reason ?? '').toBe('finished');
      expect(followedDone?.status, followedDone?.failure_reason ?? '').toBe('finished');
      expect(longDone?.status, longDone?.failure_reason ?? '').toBe('finished');
      const longLog = await fetch(`${otherApiUrl}/api/download/${longId}/log`).then((r) => r.text());
      const recorders = [...longLog.matchAll(/\[kura\] worker (\S+) records this stream/g)].map((match) => match[1]);
      expect(recorders[0]).toBe(holders[0]);
      expect(recorders.at(-1)).not.toBe(holders[0]);
      expect(workerIds).toContain(recorders.at(-1));

      // what the killed worker had stored stayed; what only its disk held was fetched again from the window
      expect(longLog).toMatch(/from sequence \d+ on is neither stored nor on this worker's disk; fetching it again/);
      // nothing lost and nothing recorded twice: every frame once, no gap
      const details = await fetch(`${apiUrl}/api/video/${longId}`).then((r) => r.json());
      expect(details.capture.gaps).toEqual([]);
      const downloaded = path.join(cwd, 'long.mp4');
      const redirect = await fetch(`${apiUrl}/api/download/${longId}/video`, { redirect: 'manual' });
      expect(redirect.status).toBe(307);
      const video = await fetch(redirect.headers.get('location') as string);
      await writeFile(downloaded, new Uint8Array(await video.arrayBuffer()));
      expect((await probe(downloaded)).frames).toBe(900);
      expect(await s3.openUploads()).toEqual([]);
    });
    // the documented budget held, and no process was refused a connection
    expect(peak).toBeGreaterThan(2 * BUDGET.worker);
    expect(peak).toBeLessThanOrEqual(INSTANCE_BUDGET);
    for (const printed of await stopAll()) expect(printed).not.toMatch(/too many connections/);
  });
});

/** Stops `old` as an operator's restart does (SIGTERM, a clean exit) and starts its replacement; resolves once that one serves. */
async function restart(old: KuraProcess, role: 'api' | 'worker'): Promise<{ process: KuraProcess; ready: Record<string, unknown> }> {
  old.child.kill('SIGTERM');
  expect((await old.exited).code).toBe(0);
  const process = start(role);
  return { process, ready: await process.waitForLog((l) => l.msg === (role === 'api' ? 'kura api listening' : 'kura worker ready')) };
}

describe('a rolling restart', SCALE_OUT, () => {
  it('of every process one by one, while a stream records, loses nothing: each worker stopped hands the capture over with what its disk held', async () => {
    // the file's other test kills a worker with -9, which may leave an upload of its own open: this one's are its own
    const uploadsBefore = await s3.openUploads();
    const apis = [start('api')];
    await apis[0]!.waitForLog((l) => l.msg === 'kura api listening'); // it migrated the database
    apis.push(start('api'));
    const workers = [start('worker'), start('worker')];
    const secondApiUrl = (await apis[1]!.waitForLog((l) => l.msg === 'kura api listening')).url as string;
    const workerIds = (await Promise.all(workers.map((w) => w.waitForLog((l) => l.msg === 'kura worker ready')))).map((l) => l.workerId as string);
    const stream = await startHlsFixture({ seconds: 30, bitrate: '2M', constantBitrate: true }); // a 1 MiB chunk every ~4 s
    fixtures.push(stream);
    const id = await archive(stream.url);
    const encoded = stream.start();
    await stream.seen(SEGMENT_REQUEST, 6);
    const firstHolder = await waitForHolder(id);

    // the api processes, one after the other: the other one answers meanwhile
    const [firstApi, secondApi] = apis as [KuraProcess, KuraProcess];
    const restartWhileOtherAnswers = async (old: KuraProcess, otherUrl: string) => {
      const stopping = restart(old, 'api');
      expect((await fetch(`${otherUrl}/api/video/${id}`)).status).toBe(200);
      return (await stopping).ready.url as string;
    };
    const apiUrl = await restartWhileOtherAnswers(firstApi, secondApiUrl);
    await restartWhileOtherAnswers(secondApi, apiUrl);
    // then the workers, the one recording first: the capture moves on whenever its worker stops
    const holder = workers[workerIds.indexOf(firstHolder)] as KuraProcess;
    for (const old of [holder, ...workers.filter((w) => w !== holder)]) {
      await stream.seen(SEGMENT_REQUEST, 1); // still live
      await restart(old, 'worker');
    }
    await encoded;
    const done = await waitForRecord(db.url, id, (r) => r.status === 'finished' || r.status === 'failed');
    expect(done?.status, done?.failure_reason ?? '').toBe('finished');
    const log = await fetch(`${apiUrl}/api/download/${id}/log`).then((r) => r.text());
    expect(log).toContain(`[kura] worker ${firstHolder} stopped; the capture continues on the next worker`);
    const recorders = [...log.matchAll(/\[kura\] worker (\S+) records this stream/g)].map((match) => match[1]);
    expect(recorders.length).toBeGreaterThanOrEqual(2);
    expect(recorders.at(-1)).not.toBe(firstHolder);
    // what each stopped worker's disk held was uploaded before it left: nothing fetched again, no gap, every frame once
    expect(log).not.toContain('fetching it again');
    const details = await fetch(`${apiUrl}/api/video/${id}`).then((r) => r.json());
    expect(details.capture.gaps).toEqual([]);
    const redirect = await fetch(`${apiUrl}/api/download/${id}/video`, { redirect: 'manual' });
    const downloaded = path.join(cwd, 'rolled.mp4');
    await writeFile(downloaded, new Uint8Array(await (await fetch(redirect.headers.get('location') as string)).arrayBuffer()));
    expect((await probe(downloaded)).frames).toBe(900);
    expect(await s3.openUploads()).toEqual(uploadsBefore);
  });
});
