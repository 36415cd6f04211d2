import { once } from 'node:events';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readPackageInfo } from '../../src/adapters/os/package-info.js';
import { runKura } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { buildRecords } from '../support/factories.js';

let cwd: string;
let db: TestDatabase;
beforeEach(async () => {
  cwd = await mkdtemp(path.join(os.tmpdir(), 'kura-cli-'));
  db = await createTestDatabase({ migrated: false });
});
afterEach(() => db.drop());

const env = () => ({ DATABASE_URL: db.url, LOG_LEVEL: 'warn' });

/** A live HLS playlist (no end) of one segment. */
const LIVE_PLAYLIST = '#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:0\n#EXTINF:2.0,\nsegment0.ts\n';

describe('kura command', () => {
  it('exits 2 listing every configuration problem, without a stack trace, a long command (dist/src) as a brief one (the bundle)', async () => {
    for (const command of [['serve'], ['follow', 'list']]) {
      const result = await runKura(command, { PORT: 'abc', KURA_ROLE: 'boss', KURA_USD_PER_GB_MONTH: 'free' }, cwd);
      expect(result.code, command.join(' ')).toBe(2);
      expect(result.stderr).toContain('PORT must be a whole number');
      expect(result.stderr).toContain('KURA_ROLE must be one of all, api, worker');
      expect(result.stderr).toContain('KURA_USD_PER_GB_MONTH');
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it('archive reaches a playlist behind two redirects and queues its stream', async () => {
    const requests: string[] = [];
    const playlists = http.createServer((request, response) => {
      requests.push(request.url ?? '');
      if (request.url === '/moved/index.m3u8') return response.writeHead(302, { location: '/moved-again/index.m3u8' }).end();
      if (request.url === '/moved-again/index.m3u8') return response.writeHead(301, { location: '/live/index.m3u8' }).end();
      response.writeHead(200, { 'content-type': 'application/vnd.apple.mpegurl' }).end(LIVE_PLAYLIST);
    });
    playlists.listen(0, '127.0.0.1');
    await once(playlists, 'listening');
    try {
      const url = `http://127.0.0.1:${(playlists.address() as AddressInfo).port}/moved/index.m3u8`;
      const result = await runKura(['archive', url], { ...env(), KURA_ALLOW_PRIVATE_SOURCES: 'true' }, cwd);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/^kura: hls-\S+ is upcoming; submitters: cli\//);
      expect(requests).toEqual(['/moved/index.m3u8', '/moved-again/index.m3u8', '/live/index.m3u8']);
      const { rows } = await db.pool.query('select status from livestreams');
      expect(rows).toEqual([{ status: 'upcoming' }]);
    } finally {
      playlists.close();
    }
  });

  it('exits 2 on an unknown command with the usage', async () => {
    const result = await runKura(['frobnicate'], {}, cwd);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Usage: kura <command>');
  });

  it('prints its release and the commit it was built from, as version and --version', async () => {
    const root = readPackageInfo().root;
    const { version } = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { version: string };
    const { commit } = JSON.parse(await readFile(path.join(root, 'dist', 'build-info.json'), 'utf8')) as { commit: string };
    for (const argument of ['version', '--version']) {
      const result = await runKura([argument], {}, cwd);
      expect(result.code).toBe(0);
      expect(result.stdout.trim()).toBe(`kura ${version} (commit ${commit.slice(0, 7)})`);
    }
  });

  it('migrate brings the schema up to date, and is a no-op the second time', async () => {
    expect((await runKura(['migrate'], env(), cwd)).code).toBe(0);
    const second = await runKura(['migrate'], env(), cwd);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('up to date');
    const { rows } = await db.pool.query('select count(*)::int as n from schema_migrations');
    expect(rows[0].n).toBeGreaterThan(0);
  });

  it('migrate exits 2 on a database a newer release migrated, saying which release to run', async () => {
    expect((await runKura(['migrate'], env(), cwd)).code).toBe(0);
    await db.pool.query(`insert into schema_migrations (name, checksum, kura_version) values ('9999_from_the_future', 'x', '9.9.9')`);
    const result = await runKura(['migrate'], env(), cwd);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^kura: cannot start: this database was migrated by Kura 9\.9\.9, newer than this Kura \d+\.\d+\.\d+: .*Run Kura 9\.9\.9 or a newer one/,
    );
  });

  it('import loads a file, re-import updates, and a bad file changes nothing', async () => {
    const file = path.join(cwd, 'history.json');
    await writeFile(file, JSON.stringify(buildRecords(500, { unfinishedEvery: 10 })));
    const first = await runKura(['import', file], env(), cwd);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/imported 500 new and 0 updated records/);
    expect((await runKura(['import', file], env(), cwd)).stdout).toMatch(/imported 0 new and 500 updated records/);

    const bad = buildRecords(3, { offset: 1000 }) as Array<Record<string, unknown>>;
    bad[0]!.scheduledStart = '0000-01-01T00:00:00Z';
    bad[1]!.title = 'Karaoke\u0000night';
    bad[2]!.finished = 'yes';
    await writeFile(file, JSON.stringify(bad));
    const refused = await runKura(['import', file], env(), cwd);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'Nothing was imported:\nrecord 0 (id "rec00001000"): scheduledStart 0000-01-01T00:00:00Z is outside the dates Kura can store (0001-01-01 to 9999-12-31 UTC)\nrecord 1 (id "rec00001001"): title holds a character the database cannot store (U+0000 at position 7)\nrecord 2 (id "rec00001002"): finished',
    );
    const { rows } = await db.pool.query('select count(*)::int as n from livestreams');
    expect(rows[0].n).toBe(500);
  });

  it("import takes the original interface's export with --base-url, and says why without it", async () => {
    const file = new URL('../fixtures/original/history-export.json', import.meta.url).pathname;
    const bad = await runKura(['import', file, '--base-url', 'pomu.example'], env(), cwd);
    expect([bad.code, bad.stderr]).toEqual([2, 'kura: --base-url must be an http(s) URL such as https://archive.example (got "pomu.example")\n']);
    const without = await runKura(['import', file], env(), cwd);
    expect(without.code).toBe(1);
    expect(without.stderr).toContain('record 0 (id "kQp3xF0aZ1c"): downloadUrl "/api/download/kQp3xF0aZ1c/video" is relative');
    const imported = await runKura(['import', file, '--base-url', 'https://pomu.example'], env(), cwd);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toMatch(/imported 10 new and 0 updated records/);
    const { rows } = await db.pool.query("select external_archive_url as url from livestreams where id = 'kQp3xF0aZ1c'");
    expect(rows[0].url).toBe('https://pomu.example/api/download/kQp3xF0aZ1c/video');
  });

  it('import refuses a file that is not JSON', async () => {
    const file = path.join(cwd, 'broken.json');
    await writeFile(file, '[{"id": ');
    const result = await runKura(['import', file], env(), cwd);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/cannot import .*broken\.json/);
  });
});
