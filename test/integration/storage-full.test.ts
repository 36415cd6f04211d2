import http from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { addUser, logIn, SAME_ORIGIN } from '../support/accounts.js';

// A full disk, on a real PostgreSQL: the disk cannot be filled for a test, so a trigger on the
// table a route writes raises what PostgreSQL raises when it cannot extend a table's file
// (SQLSTATE 53100 disk_full), through PostgreSQL's own error path; the route's code meets it as
// it would meet a full disk. Playlists are served by a plain HTTP server on 127.0.0.1.
let server: http.Server;
let kura: TestApp;
let admin: string;
const PLAYLIST = '#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.0,\nseg0.ts\n';

beforeAll(async () => {
  server = http.createServer((_request, response) => void response.writeHead(200, { 'content-type': 'application/vnd.apple.mpegurl' }).end(PLAYLIST));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  kura = await startTestApp();
  await addUser(kura, 'root', { admin: true });
  admin = await logIn(kura, 'root');
});
afterEach(async () => {
  await kura.db.pool.query('drop trigger if exists full_disk on livestreams; drop trigger if exists full_disk on follows; drop function if exists full_disk()');
});
afterAll(async () => {
  await kura?.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** From now on, a write to `table` fails as PostgreSQL fails one when its disk is full (by default), or with another SQLSTATE. */
async function writesFailOn(
  table: 'livestreams' | 'follows',
  errcode = 'disk_full',
  message = 'could not extend file "base/16384/16385": No space left on device',
) {
  await kura.db.pool.query(`create function full_disk() returns trigger language plpgsql as $$
    begin raise exception '${message}' using errcode = '${errcode}', hint = 'Check free disk space.'; end $$`);
  await kura.db.pool.query(`create trigger full_disk before insert or update on ${table} for each row execute function full_disk()`);
}

const playlist = (name: string) => `http://127.0.0.1:${(server.address() as { port: number }).port}/live/${name}/index.m3u8`;
const send = (url: string, payload: object) => kura.app.inject({ method: 'POST', url, headers: { ...SAME_ORIGIN, cookie: admin }, payload });

describe('a full disk', () => {
  it('answers a submission 503 storage_full with the reason and Retry-After, and the same submission is taken once there is space', async () => {
    await writesFailOn('livestreams');
    const refused = await send('/api/submit', { videoUrl: playlist('full'), title: 'Karaoke', channel: 'Karaoke Night' });
    expect(refused.statusCode, refused.body).toBe(503);
    expect(refused.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(refused.headers['retry-after']).toBe('60');
    expect(refused.json()).toEqual({
      type: 'about:blank',
      title: 'Service Unavailable',
      status: 503,
      code: 'storage_full',
      detail: "PostgreSQL's disk is full: Kura cannot store this change now. Try again once the operator has freed space.",
    });
    await kura.db.pool.query('drop trigger full_disk on livestreams');
    const taken = await send('/api/submit', { videoUrl: playlist('full'), title: 'Karaoke', channel: 'Karaoke Night' });
    expect(taken.statusCode, taken.body).toBe(200);
  });

  it('answers a new follow 503 storage_full, and stores no follow', async () => {
    await writesFailOn('follows');
    const refused = await send('/api/follows', { url: 'http://127.0.0.1:9/live/index.m3u8', channel: 'Karaoke Night' });
    expect(refused.statusCode, refused.body).toBe(503);
    expect(refused.headers['retry-after']).toBe('60');
    expect(refused.json()).toMatchObject({ code: 'storage_full', detail: expect.stringContaining("PostgreSQL's disk is full") });
    const { rows } = await kura.db.pool.query('select count(*)::int as n from follows');
    expect(rows[0].n).toBe(0);
  });
});

describe('a PostgreSQL short of resources', () => {
  it('answers 503 database_unavailable naming what it is short of, with Retry-After', async () => {
    await writesFailOn('livestreams', 'out_of_memory', 'out of memory');
    const refused = await send('/api/submit', { videoUrl: playlist('memory'), title: 'Karaoke', channel: 'Karaoke Night' });
    expect(refused.statusCode, refused.body).toBe(503);
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.json()).toMatchObject({ code: 'database_unavailable', detail: 'PostgreSQL is short of memory at the moment; try again shortly.' });
  });
});
