import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runKura, spawnKura, type KuraProcess } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { probe, SEGMENT_REQUEST, startHlsFixture, type HlsFixture } from '../support/hls-fixture.js';
import { waitForRecord } from '../support/records.js';
import { startS3, type TestS3 } from '../support/s3.js';

// One api process and two worker processes, each its own `kura serve` with its own data directory
// (as on separate machines), sharing one PostgreSQL database and one S3 store (s3rver), as a
// scaled-out instance runs.
let db: TestDatabase;
let cwd: string;
let s3: TestS3;
const fixtures: HlsFixture[] = [];
const processes: KuraProcess[] = [];

beforeEach(async () => {
  db = await createTestDatabase();
  cwd = await mkdtemp(path.join(os.tmpdir(), 'kura-scale-'));
  await chmod(cwd, 0o755);
  s3 = await startS3();
});
afterEach(async () => {
  for (const kura of processes.splice(0)) {
    kura.child.kill('SIGKILL');
    await kura.exited;
  }
  for (const fixture of fixtures.splice(0)) await fixture.close();
  await s3.stop();
  await db.drop();
});

function start(role: 'api' | 'worker'): KuraProcess {
  const kura = spawnKura(
    ['serve'],
    {
      ...s3.env,
      DATABASE_URL: db.url,
      // a disk of its own: what a capture had not uploaded is not on the next worker's disk
      KURA_DATA_DIR: path.join(cwd, `${role}-${processes.length}`),
      KURA_SPOOL_CHUNK_MB: '1',
      KURA_ROLE: role,
      PORT: '0',
      LOG_LEVEL: 'info',
      KURA_MAX_CAPTURES: '1', // so two streams need both workers
      KURA_WATCH_POLL_SECONDS: '0.5',
      KURA_CAPTURE_STALE_SECONDS: '4',
      KURA_CAPTURE_IDLE_SECONDS: '8',
      KURA_MIN_FREE_DISK_MB: '10',
      KURA_ALLOW_PRIVATE_SOURCES: 'true', // the fixtures live on 127.0.0.1
    },
    cwd,
  );
  processes.push(kura);
  return kura;
}

async function archive(url: string): Promise<string> {
  const result = await runKura(['archive', url], { DATABASE_URL: db.url, KURA_DATA_DIR: path.join(cwd, 'cli'), KURA_ALLOW_PRIVATE_SOURCES: 'true' }, cwd);
  expect(result.code, result.stderr).toBe(0);
  return /kura: (\S+) is/.exec(result.stdout)?.[1] as string;
}

const workerOf = async (id: string) =>
  (await db.pool.query<{ worker_id: string | null }>('select worker_id from captures where livestream_id = $1', [id])).rows[0]?.worker_id ?? null;

describe('a scaled-out instance', () => {
  it('spreads captures over two workers, serves their logs from the api, and moves a killed worker’s capture to the other', async () => {
    const api = start('api');
    const apiUrl = (await api.waitForLog((l) => l.msg === 'kura api listening')).url as string;
    const workers = [start('worker'), start('worker')];
    const workerIds = await Promise.all(workers.map(async (w) => (await w.waitForLog((l) => l.msg === 'kura worker ready')).workerId as string));

    const long = await startHlsFixture({ seconds: 30, bitrate: '2M', constantBitrate: true }); // a 1 MiB chunk every ~4 s
    const short = await startHlsFixture({ seconds: 12 });
    fixtures.push(long, short);
    const longId = await archive(long.url);
    const shortId = await archive(short.url);
    const encoded = [long.start(), short.start()];
    await Promise.all([longId, shortId].map((id) => waitForRecord(db.url, id, (r) => r.status === 'live')));
    await Promise.all([long.seen(SEGMENT_REQUEST, 3), short.seen(SEGMENT_REQUEST, 3)]);

    // one capture on each worker, and the api (which records nothing) serves both logs
    const holders = [await workerOf(longId), await workerOf(shortId)];
    expect(new Set(holders)).toEqual(new Set(workerIds));
    for (const id of [longId, shortId]) {
      const log = await fetch(`${apiUrl}/api/logz?id=${id}`);
      expect(log.status).toBe(200);
      expect(await log.text()).toContain('[kura] recording');
    }

    // kill the worker recording the long stream: the other one takes it over once it is free
    await long.seen(SEGMENT_REQUEST, 8);
    const victim = workers[workerIds.indexOf(holders[0] as string)] as KuraProcess;
    victim.child.kill('SIGKILL');
    await victim.exited;
    await Promise.all(encoded);
    const [longDone, shortDone] = await Promise.all(
      [longId, shortId].map((id) => waitForRecord(db.url, id, (r) => r.status === 'finished' || r.status === 'failed')),
    );
    expect(shortDone?.status, shortDone?.failure_reason ?? '').toBe('finished');
    expect(longDone?.status, longDone?.failure_reason ?? '').toBe('finished');
    const longLog = await fetch(`${apiUrl}/api/download/${longId}/log`).then((r) => r.text());
    const takeover = longLog.indexOf(`[kura] worker ${workerIds.find((w) => w !== holders[0])} records this stream`);
    expect(longLog.indexOf(`[kura] worker ${holders[0]} records this stream`)).toBeGreaterThan(-1);
    expect(takeover).toBeGreaterThan(longLog.indexOf(`[kura] worker ${holders[0]} records this stream`));

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
});

describe('a worker stopped with SIGTERM', () => {
  it('uploads what its disk holds and hands the capture over: the next worker, on another disk, fetches nothing again', async () => {
    const api = start('api');
    const apiUrl = (await api.waitForLog((l) => l.msg === 'kura api listening')).url as string;
    const first = start('worker');
    const firstId = (await first.waitForLog((l) => l.msg === 'kura worker ready')).workerId as string;
    const stream = await startHlsFixture({ seconds: 30, bitrate: '2M', constantBitrate: true });
    fixtures.push(stream);
    const id = await archive(stream.url);
    const encoded = stream.start();
    await stream.seen(SEGMENT_REQUEST, 10);
    expect(await workerOf(id)).toBe(firstId);
    first.child.kill('SIGTERM');
    expect((await first.exited).code).toBe(0);
    const second = start('worker');
    const secondId = (await second.waitForLog((l) => l.msg === 'kura worker ready')).workerId as string;
    await encoded;
    const done = await waitForRecord(db.url, id, (r) => r.status === 'finished' || r.status === 'failed');
    expect(done?.status, done?.failure_reason ?? '').toBe('finished');
    const log = await fetch(`${apiUrl}/api/download/${id}/log`).then((r) => r.text());
    expect(log).toContain(`[kura] worker ${firstId} stopped; the capture continues on the next worker`);
    expect(log).toContain(`[kura] worker ${secondId} records this stream`);
    expect(log).not.toContain('fetching it again');
    const details = await fetch(`${apiUrl}/api/video/${id}`).then((r) => r.json());
    expect(details.capture.gaps).toEqual([]);
    const redirect = await fetch(`${apiUrl}/api/download/${id}/video`, { redirect: 'manual' });
    const downloaded = path.join(cwd, 'handed-over.mp4');
    await writeFile(downloaded, new Uint8Array(await (await fetch(redirect.headers.get('location') as string)).arrayBuffer()));
    expect((await probe(downloaded)).frames).toBe(900);
  });
});
