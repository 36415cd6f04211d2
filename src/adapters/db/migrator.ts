import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';

/** Any 64-bit constant unique to Kura: serialises concurrent migrators. */
const MIGRATION_LOCK_KEY = 4_715_207_301;
const MIGRATION_FILE = /^(\d{4})_[a-z0-9_]+\.sql$/;

export interface MigrationResult {
  applied: string[];
  alreadyApplied: number;
}

/**
 * Applies every migration in `dir` not yet recorded, each in its own transaction,
 * under an advisory lock so processes starting together apply each exactly once.
 * Fails if an applied migration's file was edited or removed (migrations are forward-only).
 */
export async function migrate(pool: pg.Pool, dir: string): Promise<MigrationResult> {
  const files = await readMigrations(dir);
  const client = await pool.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    await client.query(`create table if not exists schema_migrations (
      name text primary key, checksum text not null, applied_at timestamptz not null default now())`);
    const { rows } = await client.query<{ name: string; checksum: string }>('select name, checksum from schema_migrations');
    const recorded = new Map(rows.map((r) => [r.name, r.checksum]));
    checkHistory(files, recorded);
    const applied: string[] = [];
    for (const file of files.filter((f) => !recorded.has(f.name))) {
      await client.query('begin');
      try {
        await client.query(file.sql);
        await client.query('insert into schema_migrations (name, checksum) values ($1, $2)', [file.name, file.checksum]);
        await client.query('commit');
      } catch (error) {
        await client.query('rollback');
        throw new Error(`Migration ${file.name} failed: ${(error as Error).message}`, { cause: error });
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

function checkHistory(files: MigrationFile[], recorded: Map<string, string>): void {
  const byName = new Map(files.map((f) => [f.name, f]));
  for (const [name, checksum] of recorded) {
    const file = byName.get(name);
    if (file === undefined) throw new Error(`Migration ${name} was applied to this database but its file is missing`);
    if (file.checksum !== checksum) throw new Error(`Migration ${name} was edited after it was applied; add a new migration instead`);
  }
}
