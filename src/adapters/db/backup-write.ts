// Decisions: docs/decisions/0121-backup-format.md
import { createWriteStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type pg from 'pg';
import { BACKUP_FORMAT, BACKUP_MAGIC, kuraTables, newestMigration, quoted, type BackupHeader } from './backup-format.js';

/** Rows fetched from a cursor at a time: a million records never sit in memory at once. */
const FETCH_ROWS = 1000;

/** What a backup holds, for its caller's report. */
export interface BackupSummary {
  file: string;
  bytes: number;
  schema: string;
  tables: number;
  rows: number;
  archives: number;
}

/**
 * Writes a backup of `pool`'s database to `file`: every table Kura owns, read in one read-only
 * repeatable-read transaction (one snapshot, taking no lock that a capture or a request waits
 * on), then the manifest of stored archives. It is written to a temporary name beside `file` and
 * renamed once whole, so `file` is never a partial backup.
 */
export async function writeBackup(pool: pg.Pool, file: string, kuraVersion: string): Promise<BackupSummary> {
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.partial`);
  const client = await pool.connect();
  try {
    await client.query('begin isolation level repeatable read read only');
    const header = await readHeader(client, kuraVersion);
    const counted = { rows: 0, archives: 0 };
    await pipeline(Readable.from(lines(client, header, counted)), createGzip(), createWriteStream(temporary, { mode: 0o600 }));
    await client.query('commit');
    await rename(temporary, file);
    const { size } = await stat(file);
    return { file, bytes: size, schema: header.schema, tables: header.tables.length, rows: counted.rows, archives: counted.archives };
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    await rm(temporary, { force: true });
    throw error;
  } finally {
    client.release();
  }
}

async function readHeader(client: pg.PoolClient, kuraVersion: string): Promise<BackupHeader> {
  const schema = await newestMigration(client);
  if (schema === null) throw new Error('the database has no schema yet: there is nothing to back up');
  const tables: BackupHeader['tables'] = [];
  for (const name of await kuraTables(client)) {
    const { rows } = await client.query<{ n: number }>(`select count(*)::int as n from ${quoted(name)}`);
    tables.push({ name, rows: rows[0]?.n ?? 0 });
  }
  const { rows: sequences } = await client.query<{ name: string; value: string | null }>(
    `select sequencename as name, last_value::text as value from pg_sequences where schemaname = current_schema() order by sequencename`,
  );
  return {
    format: BACKUP_FORMAT,
    kuraVersion,
    schema,
    takenAt: new Date().toISOString(),
    tables,
    sequences: sequences.map((s) => ({ name: s.name, value: s.value === null ? null : Number(s.value) })),
  };
}

async function* lines(client: pg.PoolClient, header: BackupHeader, counted: { rows: number; archives: number }): AsyncGenerator<string> {
  yield `${JSON.stringify([BACKUP_MAGIC, header])}\n`;
  for (const table of header.tables) {
    yield `${JSON.stringify(['table', table.name, table.rows])}\n`;
    let rows = 0;
    for await (const batch of cursor(client, `select row_to_json(t)::text as line from ${quoted(table.name)} t`)) {
      rows += batch.length;
      yield `${batch.join('\n')}\n`;
    }
    if (rows !== table.rows) throw new Error(`table ${table.name} gave ${rows} rows where it counted ${table.rows}`);
    counted.rows += rows;
  }
  const { rows: archived } = await client.query<{ n: number }>('select count(*)::int as n from livestreams where video_key is not null');
  const archives = archived[0]?.n ?? 0;
  yield `${JSON.stringify(['archives', archives])}\n`;
  const manifest = `select json_build_object('id', id, 'videoKey', video_key, 'bytes', file_size_bytes, 'sha256', sha256,
      'logKey', log_key, 'thumbnailKey', thumbnail_key)::text as line
    from livestreams where video_key is not null order by id`;
  for await (const batch of cursor(client, manifest)) yield `${batch.join('\n')}\n`;
  counted.archives = archives;
  yield `${JSON.stringify(['end', { tables: header.tables.length, rows: counted.rows, archives }])}\n`;
}

/** The `line` of each row `sql` selects, a batch at a time, from a cursor of the open transaction. */
async function* cursor(client: pg.PoolClient, sql: string): AsyncGenerator<string[]> {
  // a failure leaves it to the transaction's rollback
  await client.query(`declare kura_backup no scroll cursor for ${sql}`);
  for (;;) {
    const { rows } = await client.query<{ line: string }>(`fetch ${FETCH_ROWS} from kura_backup`);
    if (rows.length === 0) break;
    yield rows.map((row) => row.line);
  }
  await client.query('close kura_backup');
}
