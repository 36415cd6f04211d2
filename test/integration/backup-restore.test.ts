import { copyFile, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import type pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackupError } from '../../src/adapters/db/backup-format.js';
import { restoreBackup } from '../../src/adapters/db/backup-restore.js';
import { writeBackup } from '../../src/adapters/db/backup-write.js';
import { migrate } from '../../src/adapters/db/migrator.js';
import { readPackageInfo } from '../../src/adapters/os/package-info.js';
import { createFsStore } from '../../src/adapters/storage/fs-store.js';
import { parseConfig } from '../../src/config/config.js';
import { backUpDatabase, restoreDatabase } from '../../src/wiring/backup.js';
import { addUser, createToken, logIn, SAME_ORIGIN } from '../support/accounts.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { storeArchive } from '../support/archives.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { buildRecords } from '../support/factories.js';
import { MIKA, RECORDS, seedRelease060, type Release060 } from '../support/release-0.6.0.js';

// A running instance with rows in every table (a database Kura 0.6.0 used, upgraded, then used by
// this release's app: records of every state, submitters, follows, webhooks and their deliveries,
// users, sessions, API tokens, search documents, captures), backed up while a write is under way,
// and restored into a fresh database that a second app then serves.

const info = readPackageInfo();
const RELEASE_060_MIGRATIONS = 17;
let dir: string;
let source: TestDatabase;
let target: TestDatabase;
let kura: TestApp;
let restored: TestApp;
let seeded: Release060;
let file: string;
let before060: string;
let ren: { cookie: string; token: string };

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'kura-backup-'));
  source = await createTestDatabase({ migrated: false });
  await migrate(source.pool, await release060Migrations(), '0.6.0');
  seeded = await seedRelease060(source.pool, { url: 'http://127.0.0.1:9/hook', secret: `whsec_${'a'.repeat(32)}` });
  before060 = path.join(dir, 'kura-0.6.0.jsonl.gz');
  await writeBackup(source.pool, before060, '0.6.0');
  await migrate(source.pool, info.migrationsDir, info.version);
  kura = await startTestApp({}, {}, { database: source });
  await kura.load(buildRecords(6, { unfinishedEvery: 3 }));
  await storeArchive(createFsStore(kura.archiveDir), source.livestreams, 'stored-one');
  await addUser(kura, 'ren');
  const cookie = await logIn(kura, 'ren');
  ren = { cookie, token: (await createToken(kura, cookie)).token };

  // a write under way while the backup reads: it neither waits for it nor is in it
  const writer = await source.pool.connect();
  try {
    await writer.query('begin');
    await writer.query(`update livestreams set title = 'uncommitted' where id = 'stored-one'`);
    file = path.join(dir, 'kura.jsonl.gz');
    await backUpDatabase(source, file);
  } finally {
    await writer.query('rollback');
    writer.release();
  }
  target = await createTestDatabase();
  await restoreBackup(target.pool, file, { force: false });
  restored = await startTestApp({}, {}, { database: target, store: createFsStore(kura.archiveDir) });
});
afterAll(async () => {
  await (restored ? restored.close() : target?.drop());
  await (kura ? kura.close() : source?.drop());
});

describe('a backup restored into a fresh database', () => {
  it('holds every row of every table Kura owns, as the snapshot saw them', async () => {
    const tables = await tablesOf(source.pool);
    expect(tables).toEqual(await tablesOf(target.pool));
    const sourceRows = await rowsOf(source.pool, tables);
    const empty = [...sourceRows].filter(([, rows]) => rows.length === 0).map(([table]) => table);
    // what only a worker writes (its session, its spool report, a chat capture, a frame, a look, …) is not made here
    expect(empty.length).toBeLessThan(tables.length / 2);
    expect(await rowsOf(target.pool, tables)).toEqual(sourceRows);
    const { rows } = await target.pool.query(`select title from livestreams where id = 'stored-one'`);
    expect(rows).toEqual([{ title: 'Stream stored-one' }]);
  });

  it('answers the history, queue, stats, channels, follows and webhooks as the instance it was taken from', async () => {
    const admin = { authorization: `Bearer ${seeded.apiToken}` };
    for (const url of [
      '/api/history',
      '/api/history?unfinished=true&limit=100',
      '/api/queue',
      '/api/stats',
      '/api/channels',
      '/api/follows',
      '/api/webhooks',
    ]) {
      const [was, is] = await Promise.all([kura, restored].map((app) => app.app.inject({ url, headers: admin })));
      // read at the request, not stored: a live capture's elapsedSeconds (the clock), the archive disk's free space (the machine)
      const live = (key: string, value: unknown) => key === 'elapsedSeconds' || (key === 'archive' && (value as { storage?: string })?.storage !== undefined);
      const read = (body = '') => JSON.parse(body, (key, value: unknown) => (live(key, value) ? undefined : value)) as unknown;
      expect([is?.statusCode, read(is?.body)], url).toEqual([200, read(was?.body)]);
    }
  });

  it('logs users in with the same passwords, and takes their sessions and API tokens', async () => {
    const login = await restored.app.inject({
      method: 'POST',
      url: '/auth/local',
      headers: SAME_ORIGIN,
      payload: { username: MIKA.name, password: MIKA.password },
    });
    expect(login.statusCode).toBe(200);
    const user = (headers: Record<string, string>) => restored.app.inject({ url: '/api/user', headers }).then((r) => r.json<{ name: string }>());
    expect(await user({ authorization: `Bearer ${seeded.apiToken}` })).toMatchObject({ name: MIKA.name, role: 'admin' });
    expect(await user({ cookie: `kura_session=${seeded.sessionToken}` })).toMatchObject({ name: MIKA.name });
    expect(await user({ cookie: ren.cookie })).toMatchObject({ name: 'ren', role: 'user' });
    expect(await user({ authorization: `Bearer ${ren.token}` })).toMatchObject({ name: 'ren' });
    // the sequences go on from the backup's: a new token does not collide with a restored one
    expect((await createToken(restored, ren.cookie)).token).toMatch(/^kura_/);
  });
});

describe('restore refuses', () => {
  it('an instance that is not empty, unless forced, which replaces what it holds', async () => {
    const refused = restoreBackup(target.pool, file, { force: false });
    await expect(refused).rejects.toThrow(BackupError);
    await expect(refused).rejects.toThrow(
      /^this instance is not empty \(\d+ livestreams, \d+ users, 2 follows, 3 webhooks\): restore into a new data directory/,
    );
    await target.pool.query(`update livestreams set title = 'changed since' where id = 'stored-one'`);
    const summary = await restoreBackup(target.pool, file, { force: true });
    expect(summary).toMatchObject({ replaced: true, archives: 2 });
    const { rows } = await target.pool.query(`select title from livestreams where id = 'stored-one'`);
    expect(rows).toEqual([{ title: 'Stream stored-one' }]);
  });

  it('a backup a newer Kura made, naming both releases, before it opens the database', async () => {
    const lines = gunzipSync(await readFile(file))
      .toString()
      .split('\n');
    const [magic, header] = JSON.parse(lines[0] as string) as [string, Record<string, unknown>];
    const newer = path.join(dir, 'newer.jsonl.gz');
    await writeFile(
      newer,
      gzipSync([JSON.stringify([magic, { ...header, kuraVersion: '9.1.0', schema: '9001_from_the_future' }]), ...lines.slice(1)].join('\n')),
    );
    const config = parseConfig({ DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', LOG_LEVEL: 'silent' });
    await expect(restoreDatabase(config, pino({ level: 'silent' }), newer, false)).rejects.toThrow(
      `${newer} was made by Kura 9.1.0, whose schema (migration 9001_from_the_future) is newer than this Kura ${info.version}'s`,
    );
  });

  it('a file that is not a backup, or a damaged or truncated one, leaving the database as it was', async () => {
    const tables = await tablesOf(target.pool);
    const rowsBefore = await rowsOf(target.pool, tables);
    const whole = await readFile(file);
    const lines = gunzipSync(whole).toString().split('\n');
    const cases: Array<[string, Buffer, RegExp]> = [
      ['not-gzip', Buffer.from('[{"id": "x"}]'), /is damaged or not a Kura backup \(incorrect header check\)/],
      ['not-a-backup', gzipSync('{"id": "x"}\n'), /is not a Kura backup/],
      ['cut-bytes', whole.subarray(0, Math.floor(whole.length * 0.8)), /is damaged or not a Kura backup \(unexpected end of file\)/],
      ['cut-lines', gzipSync(lines.slice(0, Math.floor(lines.length * 0.8)).join('\n')), /is damaged: /],
      ['bad-row', gzipSync(lines.map((line, i) => (i === lines.length - 5 ? '{"id": broken' : line)).join('\n')), /invalid input syntax for type json/],
    ];
    for (const [name, bytes, error] of cases) {
      const bad = path.join(dir, `${name}.jsonl.gz`);
      await writeFile(bad, bytes);
      await expect(restoreBackup(target.pool, bad, { force: true }), name).rejects.toThrow(error);
    }
    expect(await rowsOf(target.pool, tables)).toEqual(rowsBefore);
    const { rows } = await target.pool.query<{ triggers: number }>(
      `select count(*)::int as triggers from pg_trigger where not tgisinternal and tgenabled = 'D'`,
    );
    expect(rows).toEqual([{ triggers: 0 }]);
  });
});

describe("a backup of an older release's schema", () => {
  it('is restored into an empty database at its schema, which is then migrated to this release', async () => {
    const empty = await createTestDatabase({ migrated: false });
    try {
      const config = parseConfig({ DATABASE_URL: empty.url, LOG_LEVEL: 'silent' });
      const result = await restoreDatabase(config, pino({ level: 'silent' }), before060, false);
      const names = (await readdir(info.migrationsDir)).filter((f) => f.endsWith('.sql')).map((f) => f.replace(/\.sql$/, ''));
      expect(result).toMatchObject({ replaced: false, upgraded: names.sort().slice(RELEASE_060_MIGRATIONS) });
      const { rows } = await empty.pool.query<{ id: string }>('select id from livestreams order by id');
      expect(rows.map((r) => r.id)).toEqual(
        Object.values(RECORDS)
          .map((r) => r.id)
          .sort(),
      );
      const users = await empty.pool.query('select name from users order by name');
      expect(users.rows).toEqual([{ name: 'Hana' }, { name: MIKA.name }]);
    } finally {
      await empty.drop();
    }
  });
});

async function release060Migrations(): Promise<string> {
  const migrations = await mkdtemp(path.join(os.tmpdir(), 'kura-migrations-0.6.0-'));
  const files = (await readdir(info.migrationsDir)).filter((f) => /^\d{4}_.*\.sql$/.test(f)).sort();
  for (const f of files.slice(0, RELEASE_060_MIGRATIONS)) await copyFile(path.join(info.migrationsDir, f), path.join(migrations, f));
  return migrations;
}

async function tablesOf(pool: pg.Pool): Promise<string[]> {
  const { rows } = await pool.query<{ tablename: string }>(
    `select tablename from pg_tables where schemaname = current_schema() and tablename <> 'schema_migrations' order by tablename`,
  );
  return rows.map((r) => r.tablename);
}

/** Each table's rows as jsonb text, sorted, so two databases compare whatever their physical order. */
async function rowsOf(pool: pg.Pool, tables: string[]): Promise<Map<string, string[]>> {
  const result = new Map<string, string[]>();
  for (const table of tables) {
    const { rows } = await pool.query<{ row: string }>(`select to_jsonb(t)::text as row from ${table} t`);
    result.set(table, rows.map((r) => r.row).sort());
  }
  return result;
}
