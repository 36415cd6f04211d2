import { chmod, mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/adapters/embedded-postgres/embedded-postgres.js';
import { runKura, spawnKura, type KuraProcess } from '../support/cli.js';
import { probe, SEGMENT_REQUEST, startHlsFixture, type HlsFixture } from '../support/hls-fixture.js';
import { waitForRecord } from '../support/records.js';
import { e2eEnv } from '../support/serve-env.js';

// PostgreSQL lost for ~10 s under a running `kura serve` that is recording: the api answers 503
// problem JSON meanwhile, /readyz says not ready, and everything resumes by itself with the
// archive complete. The database is a cluster of the test's own (DATABASE_URL), stopped with a
// fast shutdown and started again on the same port, as an operator's restart of PostgreSQL.
const OUTAGE_MS = 10_000;

let postgres: EmbeddedDatabase | null = null;
let kura: KuraProcess | null = null;
let fixture: HlsFixture | null = null;
afterEach(async () => {
  kura?.child.kill('SIGKILL');
  await kura?.exited;
  await fixture?.close();
  await postgres?.stop();
});

async function problemOf(response: Response) {
  return { status: response.status, type: response.headers.get('content-type'), body: await response.json() };
}

describe('a database outage during a capture', () => {
  it('answers 503 while PostgreSQL is away, then resumes by itself and archives every segment', async () => {
    const cwd = await mkdtemp(path.join(os.tmpdir(), 'kura-outage-'));
    await chmod(cwd, 0o755); // as root, PostgreSQL runs as the postgres user
    const clusterDir = path.join(cwd, 'external', 'postgres');
    const startCluster = (port?: number) => startEmbeddedPostgres({ dir: clusterDir, log: () => undefined, ...(port ? { port } : {}) });
    postgres = await startCluster();
    const url = postgres.connectionString;
    const port = Number(new URL(url).port);
    const env = e2eEnv(url, path.join(cwd, 'data'), { LOG_LEVEL: 'warn' });

    fixture = await startHlsFixture({ seconds: 30 });
    kura = spawnKura(['serve'], { ...env, LOG_LEVEL: 'info' }, cwd);
    const api = (await kura.waitForLog((l) => l.msg === 'kura api listening')).url as string;
    const archived = await runKura(['archive', fixture.url, '--title', 'Outage karaoke'], env, cwd);
    expect(archived.code, archived.stderr).toBe(0);
    const id = /kura: (\S+) is/.exec(archived.stdout)?.[1] as string;
    const encoded = fixture.start();
    await fixture.seen(SEGMENT_REQUEST, 5);

    await postgres.stop();
    postgres = null;
    const outageEnds = Date.now() + OUTAGE_MS;
    await expect.poll(async () => (await fetch(`${api}/readyz`)).status, { timeout: 5000 }).toBe(503);
    expect(await problemOf(await fetch(`${api}/readyz`))).toMatchObject({
      status: 503,
      type: expect.stringContaining('application/problem+json'),
      body: { code: 'database_unavailable' },
    });
    // the read cache follows the change feed, which is down: reads go to the database and say it is away
    await expect.poll(async () => (await fetch(`${api}/api/video/${id}`)).status, { timeout: 5000 }).toBe(503);
    const during = await fetch(`${api}/api/history?unfinished=true`);
    expect(during.headers.get('retry-after')).toBe('5');
    expect(await problemOf(during)).toMatchObject({ status: 503, body: { code: 'database_unavailable', status: 503 } });
    expect(kura.child.exitCode).toBeNull();

    await new Promise((resolve) => setTimeout(resolve, outageEnds - Date.now())); // the outage itself
    postgres = await startCluster(port);
    await expect.poll(async () => (await fetch(`${api}/readyz`)).status, { timeout: 15_000 }).toBe(200);
    expect((await fetch(`${api}/api/video/${id}`)).status).toBe(200);

    await encoded;
    const done = await waitForRecord(url, id, (r) => r.status === 'finished' || r.status === 'failed');
    expect(done.status, done.failure_reason ?? '').toBe('finished');
    const details = await fetch(`${api}/api/video/${id}`).then((r) => r.json());
    expect(details.capture).toMatchObject({ state: 'finalized', endReason: 'endlist', complete: true, gaps: [] });
    const log = await fetch(`${api}/api/download/${id}/log`).then((r) => r.text());
    expect(log).toMatch(/PostgreSQL could not be reached for \d+\.\d s; recording paused and went on/);
    expect((await probe(path.join(cwd, 'data', 'archive', 'archives', id, `${id}.mp4`))).frames).toBe(900); // 30 s at 30 fps, nothing lost
    expect(kura.child.exitCode).toBeNull();
  }, 120_000);
});
