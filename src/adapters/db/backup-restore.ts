// Decisions: docs/decisions/0121-backup-format.md
import { createReadStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip } from 'node:zlib';
import type pg from 'pg';
import { BackupError, kuraTables, newestMigration, parseHeader, quoted, type BackupHeader } from './backup-format.js';

/** Rows inserted per statement, and the most bytes of JSON one statement is given. */
const INSERT_ROWS = 1000;
const INSERT_BYTES = 4 * 1024 * 1024;
/** Held for the restore's transaction: two restores into one database take turns. */
const RESTORE_LOCK_KEY = 4_715_207_309;
/** The tables whose rows make an instance not empty; what a first start writes by itself (worker sessions, reports, a setup token) does not count. */
const CONTENT_TABLES = ['livestreams', 'users', 'follows', 'webhooks'];

export interface RestoreSummary {
  header: BackupHeader;
  rows: number;
  archives: number;
  /** Whether the instance held records, users, follows or webhooks that the restore replaced (`force`). */
  replaced: boolean;
}

/** The first line of `file`, read as a backup's header (BackupError when it is not one). */
export async function readBackupHeader(file: string): Promise<BackupHeader> {
  const lines = backupLines(file);
  try {
    const first = await lines.next();
    return parseHeader(first.done === true ? undefined : first.value, file);
  } finally {
    await lines.return(undefined);
  }
}

/**
 * Restores `file` into `pool`'s database, whose schema must be the backup's: in one transaction,
 * Kura's tables are emptied, then given the backup's rows (triggers off, so totals, events and
 * notifications are taken as the backup holds them rather than made again) and its sequences'
 * values. Anything wrong (a damaged or truncated file, a count that differs) rolls it all back.
 * Refused while a worker of this database is alive, and when the instance holds records, users,
 * follows or webhooks unless `force`.
 */
export async function restoreBackup(pool: pg.Pool, file: string, options: { force: boolean }): Promise<RestoreSummary> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    await client.query('select pg_advisory_xact_lock($1)', [RESTORE_LOCK_KEY]);
    const lines = backupLines(file);
    const first = await lines.next();
    const header = parseHeader(first.done === true ? undefined : first.value, file);
    const tables = await checkTarget(client, header, options.force);
    const replaced = await holdsContent(client);
    for (const table of tables) await client.query(`alter table ${quoted(table)} disable trigger user`);
    await client.query(`truncate ${tables.map(quoted).join(', ')} restart identity`);
    const { rows, archives } = await insertRows(client, header, lines, file);
    for (const sequence of header.sequences) {
      if (sequence.value !== null) await client.query('select setval($1::regclass, $2, true)', [quoted(sequence.name), sequence.value]);
    }
    for (const table of tables) await client.query(`alter table ${quoted(table)} enable trigger user`);
    await client.query('commit');
    return { header, rows, archives, replaced };
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** Kura's tables in the target, once it is known to take this backup. */
async function checkTarget(client: pg.PoolClient, header: BackupHeader, force: boolean): Promise<string[]> {
  // worker sessions are noted since migration 0032: an older schema has none to look at
  const { rows: noted } = await client.query<{ noted: boolean }>(`select to_regclass('gone_workers') is not null as noted`);
  const { rows: alive } = noted[0]?.noted
    ? await client.query<{ worker_id: string }>(
        'select worker_id from worker_sessions where worker_id not in (select worker_id from gone_workers) order by worker_id',
      )
    : { rows: [] };
  if (alive.length > 0)
    throw new BackupError(
      `Kura is running on this database (worker ${alive.map((w) => w.worker_id).join(', ')}): stop every Kura process of the instance, then restore`,
    );
  const schema = await newestMigration(client);
  if (schema !== header.schema)
    throw new BackupError(
      `this database's schema is at migration ${schema ?? '(none)'}, past the backup's ${header.schema} (Kura ${header.kuraVersion}): restore it into a new data directory or an empty database, which the restore brings to the backup's schema first and to this release's after`,
    );
  const tables = await kuraTables(client);
  const inBackup = header.tables.map((t) => t.name);
  if ([...tables].sort().join() !== [...inBackup].sort().join())
    throw new BackupError(`the backup's tables (${inBackup.join(', ')}) are not this schema's (${tables.join(', ')})`);
  if (!force && (await holdsContent(client))) {
    const counts = await contentCounts(client);
    throw new BackupError(
      `this instance is not empty (${counts}): restore into a new data directory or an empty database, or add --force to replace everything it holds with the backup`,
    );
  }
  return tables;
}

async function holdsContent(client: pg.PoolClient): Promise<boolean> {
  const { rows } = await client.query<{ any: boolean }>(`select ${CONTENT_TABLES.map((t) => `exists (select 1 from ${t})`).join(' or ')} as any`);
  return rows[0]?.any === true;
}

async function contentCounts(client: pg.PoolClient): Promise<string> {
  const { rows } = await client.query<Record<string, number>>(`select ${CONTENT_TABLES.map((t) => `(select count(*)::int from ${t}) as ${t}`).join(', ')}`);
  const counts = rows[0] ?? {};
  return CONTENT_TABLES.map((t) => `${counts[t] ?? 0} ${t}`).join(', ');
}

/** Reads the sections after the header, in its order, inserting each table's rows; checks every count and the end. */
async function insertRows(client: pg.PoolClient, header: BackupHeader, lines: AsyncGenerator<string>, file: string) {
  const damaged = (what: string) => new BackupError(`${file} is damaged: ${what}; nothing was restored`);
  let total = 0;
  let archives = 0;
  let section: { kind: 'table'; name: string; expected: number; seen: number; insert: string } | { kind: 'archives'; expected: number; seen: number } | null =
    null;
  let batch: string[] = [];
  let batchBytes = 0;
  const flush = async () => {
    if (batch.length === 0 || section?.kind !== 'table') return;
    await client.query(section.insert, [`[${batch.join(',')}]`]);
    batch = [];
    batchBytes = 0;
  };
  const close = async () => {
    await flush();
    if (section !== null && section.seen !== section.expected)
      throw damaged(
        `${section.kind === 'table' ? `table ${section.name}` : 'the archive manifest'} has ${section.seen} lines where it says ${section.expected}`,
      );
  };
  let tableIndex = 0;
  let ended = false;
  for await (const line of lines) {
    if (line === '') continue;
    if (ended) throw damaged('it goes on after its end');
    if (line.startsWith('{')) {
      if (section === null) throw damaged('a row comes before any table');
      section.seen += 1;
      if (section.kind === 'archives') continue;
      batch.push(line);
      batchBytes += line.length;
      if (batch.length >= INSERT_ROWS || batchBytes >= INSERT_BYTES) await flush();
      continue;
    }
    const marker = parseMarker(line, damaged);
    await close();
    if (marker[0] === 'table') {
      const expected = header.tables[tableIndex];
      if (expected === undefined || expected.name !== marker[1] || expected.rows !== marker[2])
        throw damaged(`its table ${String(marker[1])} is not the one its header lists next`);
      tableIndex += 1;
      total += expected.rows;
      section = { kind: 'table', name: expected.name, expected: expected.rows, seen: 0, insert: await insertSql(client, expected.name) };
    } else if (marker[0] === 'archives') {
      if (tableIndex !== header.tables.length) throw damaged('its archive manifest comes before every table');
      archives = Number(marker[1]);
      section = { kind: 'archives', expected: archives, seen: 0 };
    } else if (marker[0] === 'end') {
      const end = marker[1] as { rows?: number; archives?: number };
      if (section?.kind !== 'archives' || end.rows !== total || end.archives !== archives) throw damaged('its end does not match what it holds');
      section = null;
      ended = true;
    } else throw damaged(`a line it cannot read (${line.slice(0, 40)})`);
  }
  if (!ended) throw damaged('it ends before its last line (a truncated file?)');
  return { rows: total, archives };
}

function parseMarker(line: string, damaged: (what: string) => BackupError): unknown[] {
  try {
    const parsed = JSON.parse(line) as unknown;
    if (Array.isArray(parsed)) return parsed;
  } catch {
    // said below
  }
  throw damaged(`a line it cannot read (${line.slice(0, 40)})`);
}

/** The insert of a batch of rows (a JSON array) into `table`: every column but generated ones, identities as given. */
async function insertSql(client: pg.PoolClient, table: string): Promise<string> {
  const { rows } = await client.query<{ name: string }>(
    `select attname as name from pg_attribute where attrelid = $1::regclass and attnum > 0 and not attisdropped and attgenerated = '' order by attnum`,
    [quoted(table)],
  );
  const columns = rows.map((r) => quoted(r.name)).join(', ');
  return `insert into ${quoted(table)} (${columns}) overriding system value select ${columns} from json_populate_recordset(null::${quoted(table)}, $1::json)`;
}

/** The lines of a gzip file, a chunk at a time; a file that is not gzip, or ends early, rejects with a BackupError. */
export async function* backupLines(file: string): AsyncGenerator<string> {
  const input = createReadStream(file);
  const gunzip = createGunzip();
  input.on('error', (error) => gunzip.destroy(error));
  input.pipe(gunzip);
  const decoder = new StringDecoder('utf8');
  let rest = '';
  try {
    for await (const chunk of gunzip) {
      const text = rest + decoder.write(chunk as Buffer);
      const lines = text.split('\n');
      rest = lines.pop() as string;
      yield* lines;
    }
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR') throw new BackupError(`cannot read ${file}: ${message}`);
    throw new BackupError(`${file} is damaged or not a Kura backup (${message}); nothing was restored`);
  } finally {
    input.destroy();
    gunzip.destroy();
  }
  rest += decoder.end();
  if (rest !== '') yield rest;
}
