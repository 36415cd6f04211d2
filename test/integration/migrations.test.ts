import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrate, MigrationError } from '../../src/adapters/db/migrator.js';
import { readPackageInfo } from '../../src/adapters/os/package-info.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

const dir = readPackageInfo().migrationsDir;
let db: TestDatabase;
beforeEach(async () => {
  db = await createTestDatabase({ migrated: false });
});
afterEach(() => db.drop());

/** The tables the migrations in `folder` leave: those they create, less those a later one drops. */
async function tablesCreatedBy(folder: string): Promise<string[]> {
  const files = (await readdir(folder)).filter((name) => name.endsWith('.sql')).sort();
  const sql = (await Promise.all(files.map((name) => readFile(path.join(folder, name), 'utf8')))).join('\n');
  const dropped = new Set([...sql.matchAll(/drop table (?:if exists )?(\w+)/gi)].map((m) => m[1] as string));
  return [...sql.matchAll(/create table (?:if not exists )?(\w+)/gi)].map((m) => m[1] as string).filter((name) => !dropped.has(name));
}

const recorded = async () => (await db.pool.query('select name from schema_migrations order by name')).rows.map((r) => r.name);

describe('migrations', () => {
  it('apply once, and a second run changes nothing', async () => {
    const first = await migrate(db.pool, dir, '0.7.0');
    expect(first.applied[0]).toBe('0001_livestreams');
    const second = await migrate(db.pool, dir, '0.7.0');
    expect(second.applied).toEqual([]);
    expect(second.alreadyApplied).toBe(first.applied.length);
    expect(await recorded()).toEqual(first.applied);
  });

  it('are applied exactly once when several processes start together', async () => {
    const results = await Promise.all(Array.from({ length: 4 }, () => migrate(db.pool, dir, '0.7.0')));
    const appliedBy = results.filter((r) => r.applied.length > 0);
    expect(appliedBy).toHaveLength(1);
    expect(await recorded()).toEqual(appliedBy[0]!.applied);
    const { rows: tables } = await db.pool.query(`select tablename from pg_tables where schemaname = current_schema()`);
    const created = await tablesCreatedBy(dir);
    expect(created).toEqual(
      expect.arrayContaining(['livestreams', 'captures', 'users', 'sessions', 'search_documents', 'archive_checks', 'follows', 'follow_sightings']),
    );
    expect(tables.map((t) => t.tablename)).toEqual(expect.arrayContaining(created));
    // each migration's statements ran once: the totals table holds its single seeded row
    const totals = await db.pool.query(`select all_count::int, total_file_size::int from livestream_totals`);
    expect(totals.rows).toEqual([{ all_count: 0, total_file_size: 0 }]);
  });

  it('refuse to run when an applied migration was edited', async () => {
    const edited = await mkdtemp(path.join(os.tmpdir(), 'kura-migrations-'));
    await writeFile(path.join(edited, '0001_first.sql'), 'create table first_table (id int);');
    await migrate(db.pool, edited, '0.7.0');
    await writeFile(path.join(edited, '0001_first.sql'), 'create table first_table (id bigint);');
    await expect(migrate(db.pool, edited, '0.7.0')).rejects.toThrow(/^migration 0001_first was edited after it was applied/);
  });

  it('refuse a database a newer release migrated, naming both releases and its newest migration', async () => {
    const newer = await mkdtemp(path.join(os.tmpdir(), 'kura-migrations-'));
    await writeFile(path.join(newer, '0001_first.sql'), 'create table first_table (id int);');
    await writeFile(path.join(newer, '0002_second.sql'), 'alter table first_table add column name text;');
    await migrate(db.pool, newer, '0.8.0');
    const { rows } = await db.pool.query('select name, kura_version from schema_migrations order by name');
    expect(rows).toEqual([
      { name: '0001_first', kura_version: '0.8.0' },
      { name: '0002_second', kura_version: '0.8.0' },
    ]);
    const older = await mkdtemp(path.join(os.tmpdir(), 'kura-migrations-'));
    await writeFile(path.join(older, '0001_first.sql'), 'create table first_table (id int);');
    const refused = migrate(db.pool, older, '0.7.0');
    await expect(refused).rejects.toBeInstanceOf(MigrationError);
    await expect(refused).rejects.toThrow(
      /^this database was migrated by Kura 0\.8\.0, newer than this Kura 0\.7\.0: it has 1 migration\(s\) this release does not know \(the newest 0002_second\)/,
    );
  });

  it('roll back a failing migration entirely and record nothing', async () => {
    const broken = await mkdtemp(path.join(os.tmpdir(), 'kura-migrations-'));
    await writeFile(path.join(broken, '0001_half.sql'), 'create table half_done (id int); select no_such_function();');
    await expect(migrate(db.pool, broken, '0.7.0')).rejects.toThrow(
      /^migration 0001_half failed, and was rolled back .*: function no_such_function\(\) does not exist$/,
    );
    expect(await recorded()).toEqual([]);
    const { rowCount } = await db.pool.query(`select 1 from pg_tables where tablename = 'half_done'`);
    expect(rowCount).toBe(0);
  });
});
