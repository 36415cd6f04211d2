import { chmod, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runKura, spawnKura, type KuraProcess } from '../support/cli.js';
import { e2eEnv } from '../support/serve-env.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { probe, SEGMENT_REQUEST, startHlsFixture, type HlsFixture } from '../support/hls-fixture.js';
import { waitForRecord, waitForRecordGone } from '../support/records.js';

// An admin stops a capture in progress through the API: `kura serve` (the built command) records
// a live ffmpeg stream on 127.0.0.1, an admin made with `kura user add --admin` cancels it with an
// API token from `kura token create`, and what was recorded until then is archived. On the same
// server, a live record is taken down in one action.
let db: TestDatabase;
let cwd: string;
let kura: KuraProcess;
let api: string;
let token: string;
const fixtures: HlsFixture[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  cwd = await mkdtemp(path.join(os.tmpdir(), 'kura-cancel-'));
  await chmod(cwd, 0o755);
  kura = spawnKura(['serve'], env(), cwd);
  api = (await kura.waitForLog((line) => line.msg === 'kura api listening')).url as string;
  await kuraCommand(['user', 'add', 'boss', '--admin'], 'a long passphrase\n');
  token = (await kuraCommand(['token', 'create', 'local/boss'])).trim();
});
afterAll(async () => {
  kura?.child.kill('SIGKILL');
  await kura?.exited;
  for (const fixture of fixtures) await fixture.close();
  await db?.drop();
});

const env = () => e2eEnv(db.url, path.join(cwd, 'data'));

async function kuraCommand(args: string[], stdin?: string): Promise<string> {
  const result = await runKura(args, env(), cwd, stdin);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout;
}

/** A live HLS stream of `seconds` and the id of the record `kura archive` made for it. */
async function liveStream(seconds: number, title: string): Promise<{ fixture: HlsFixture; id: string }> {
  const fixture = await startHlsFixture({ seconds });
  fixtures.push(fixture);
  const id = /kura: (\S+) is/.exec(await kuraCommand(['archive', fixture.url, '--title', title]))?.[1] as string;
  return { fixture, id };
}

const adminAction = (method: 'POST' | 'DELETE', url: string, reason: string) =>
  fetch(`${api}${url}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ reason }),
  });

it("stops recording a live stream at an admin's request and archives what was recorded", async () => {
  const { fixture, id } = await liveStream(120, 'Wrong stream');
  const cancel = (reason: string) => adminAction('POST', `/api/video/${id}/cancel`, reason);

  let streamEnded = false;
  void fixture.start().then(() => (streamEnded = true));
  await waitForRecord(db.url, id, (r) => r.status === 'live');
  await fixture.seen(SEGMENT_REQUEST, 6);
  const stopping = await cancel('wrong stream');
  expect(stopping.status).toBe(202);
  expect(await stopping.json()).toMatchObject({ id, status: 'live' });

  const done = await waitForRecord(db.url, id, (r) => r.status === 'finished' || r.status === 'failed');
  expect(done.status, done.failure_reason ?? '').toBe('finished');
  expect(streamEnded).toBe(false); // the stream goes on: the capture ended because it was asked to
  // the capture is marked finalized just after the record says finished (chunks go only after both)
  const details = async () => (await fetch(`${api}/api/video/${id}`).then((r) => r.json())).capture;
  await expect.poll(details, { timeout: 10_000 }).toMatchObject({ state: 'finalized', endReason: 'cancelled', complete: true });
  const video = await fetch(`${api}/api/download/${id}/video`);
  expect(video.status).toBe(200);
  const file = path.join(cwd, 'archived.mp4');
  await writeFile(file, Buffer.from(await video.arrayBuffer()));
  const archived = await probe(file);
  expect(archived.duration).toBeGreaterThanOrEqual(6);
  expect(archived.duration).toBeLessThan(60);
  expect(Math.abs((done.length_seconds as number) - archived.duration)).toBeLessThanOrEqual(1);
  const log = await fetch(`${api}/api/download/${id}/log`).then((r) => r.text());
  expect(log).toContain('local/boss asked to stop the capture: wrong stream');
  expect(log).toContain('capture ended (cancelled)');

  // a finished record is not cancelled again; now it can be taken down
  expect(await (await cancel('again')).json()).toMatchObject({ status: 409, code: 'livestream_not_cancellable' });
  const takedown = await adminAction('DELETE', `/api/video/${id}`, 'wrong stream');
  expect(takedown.status).toBe(204);
  const { rows } = await db.pool.query(`select action, admin, reason from admin_actions where livestream_id = $1 order by id`, [id]);
  expect(rows).toEqual([
    { action: 'cancel', admin: 'local/boss', reason: 'wrong stream' },
    { action: 'takedown', admin: 'local/boss', reason: 'wrong stream' },
  ]);
});

it('takes a live record down in one action: 202, its capture stops, then the record and every file of it are gone', async () => {
  const { fixture, id } = await liveStream(60, 'Legal notice');
  void fixture.start();
  await waitForRecord(db.url, id, (r) => r.status === 'live');
  await fixture.seen(SEGMENT_REQUEST, 4);
  const spooled = await readdir(path.join(cwd, 'data'), { recursive: true });
  expect(spooled.filter((name) => name.includes(id)).length).toBeGreaterThan(0); // the capture has files to leave behind

  const response = await adminAction('DELETE', `/api/video/${id}`, 'legal notice');
  expect(response.status).toBe(202);
  expect(await response.json()).toMatchObject({ id, takedown: 'pending', admin: 'local/boss', reason: 'legal notice' });
  expect((await fetch(`${api}/api/video/${id}`)).status).toBe(404); // not served from the 202 on

  await waitForRecordGone(db.url, id);
  expect((await fetch(`${api}/api/video/${id}`)).status).toBe(404);
  expect((await readdir(path.join(cwd, 'data'), { recursive: true })).filter((name) => name.includes(id))).toEqual([]);
  const { rows } = await db.pool.query(`select action, admin, reason from admin_actions where livestream_id = $1`, [id]);
  expect(rows).toEqual([{ action: 'takedown', admin: 'local/boss', reason: 'legal notice' }]);
});
