// Decisions: docs/decisions/0118-releases-and-upgrades.md
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';

/** Any 64-bit constant unique to Kura: serialises concurrent migrators. */
const MIGRATION_LOCK_KEY = 4_715_207_301;
const MIGRATION_FILE = /^(\d{4})_[a-z0-9_]+\.sql$/;

/**
 * Why the schema could not be brought up to date: a migration failed (and was rolled back), or
 * the database is not one this release can run on (migrated by a newer release, or a migration
 * edited after it was applied). `kura` exits 2 with its message.
 */
export class MigrationError extends Error {}

export interface MigrationResult {
  applied: string[];
  alreadyApplied: number;
}

/**
 * Applies every migration in `dir` not yet recorded, each in its own transaction (a failed one
 * leaves the database as it was before it), under an advisory lock so processes starting together
 * apply each exactly once, recording the release (`version`) that applied it. Refuses a database
 * that holds a migration `dir` does not (a newer release migrated it), or one whose file was
 * edited after it was applied (migrations are forward-only). With `upTo`, the migrations after that
 * one are left for later.
 */
export async function migrate(pool: pg.Pool, dir: string, version: string, upTo?: string): Promise<MigrationResult> {
  const files = await readMigrations(dir);
  const client = await pool.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    await client.query(`create table if not exists schema_migrations (
      name text primary key, checksum text not null, applied_at timestamptz not null default now())`);
    // the release that applied each migration (null: one before 0.7.0, which did not say)
    await client.query('alter table schema_migrations add column if not exists kura_version text');
    const { rows } = await client.query<Recorded>('select name, checksum, kura_version from schema_migrations order by name');
    checkHistory(files, rows, version);
    const recorded = new Set(rows.map((row) => row.name));
    const applied: string[] = [];
    // `upTo`: only as far as that migration (a restore brings the schema to its backup's first)
    for (const file of files.filter((f) => !recorded.has(f.name) && (upTo === undefined || f.name <= upTo))) {
      await client.query('begin');
      try {
        await client.query(file.sql);
        await client.query('insert into schema_migrations (name, checksum, kura_version) values ($1, $2, $3)', [file.name, file.checksum, version]);
        await client.query('commit');
      } catch (error) {
        await client.query('rollback');
        throw new MigrationError(
          `migration ${file.name} failed, and was rolled back (the database is as it was before it; ${applied.length} applied before it are kept): ${(error as Error).message}`,
          { cause: error },
        );
      }
      applied.push(file.name);
    }
    return { applied, alreadyApplied: recorded.size };
  } finally {
    await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    client.release();
  }
}

interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

/** The names of the migrations in `dir`, oldest first (`0001_livestreams`). */
export async function migrationNames(dir: string): Promise<string[]> {
  return (await readMigrations(dir)).map((file) => file.name);
}

async function readMigrations(dir: string): Promise<MigrationFile[]> {
  const names = (await readdir(dir)).filter((n) => n.endsWith('.sql')).sort();
  const files: MigrationFile[] = [];
  for (const fileName of names) {
    if (!MIGRATION_FILE.test(fileName)) throw new Error(`Migration file ${fileName} must be named NNNN_name.sql`);
    const sql = await readFile(path.join(dir, fileName), 'utf8');
    files.push({ name: fileName.replace(/\.sql$/, ''), sql, checksum: createHash('sha256').update(sql).digest('hex') });
  }
  return files;
}

/** A migration the database says was applied. */
interface Recorded {
  name: string;
  checksum: string;
  kura_version: string | null;
}

function checkHistory(files: MigrationFile[], recorded: readonly Recorded[], version: string): void {
  const byName = new Map(files.map((f) => [f.name, f]));
  const unknown = recorded.filter((row) => !byName.has(row.name));
  if (unknown.length > 0) {
    const newest = unknown.at(-1) as Recorded;
    const by = newest.kura_version === null ? 'a newer Kura' : `Kura ${newest.kura_version}`;
    throw new MigrationError(
      `this database was migrated by ${by}, newer than this Kura ${version}: it has ${unknown.length} migration(s) this release does not know (the newest ${newest.name}). Run ${newest.kura_version === null ? 'that release' : `Kura ${newest.kura_version}`} or a newer one; a release never undoes a migration.`,
    );
  }
  for (const row of recorded) {
    if ((byName.get(row.name) as MigrationFile).checksum !== row.checksum)
      throw new MigrationError(`migration ${row.name} was edited after it was applied to this database; add a new migration instead`);
  }
}
