// Decisions: docs/decisions/0121-backup-format.md
import type pg from 'pg';

/*
 * A Kura backup is one gzip file of JSON lines. Lines that begin with `[` say what follows; lines
 * that begin with `{` are rows (row_to_json of the table named above them) or, after `archives`,
 * the manifest of stored archives:
 *
 *   ["kura-backup", {format, kuraVersion, schema, takenAt, tables: [{name, rows}], sequences: [{name, value}]}]
 *   ["table", "livestreams", 1234]        then 1234 row lines
 *   …                                     every table, parents before the tables that refer to them
 *   ["archives", 56]                      then 56 lines {id, videoKey, bytes, sha256, logKey, thumbnailKey}
 *   ["end", {tables, rows, archives}]
 */

/** The format this release writes and reads. */
export const BACKUP_FORMAT = 1;
export const BACKUP_MAGIC = 'kura-backup';

export interface BackupHeader {
  format: number;
  /** The release that took it. */
  kuraVersion: string;
  /** The newest migration of the schema its rows are in (`0036_drop_search_words_count`). */
  schema: string;
  takenAt: string;
  /** Kura's tables, in the order their rows follow (a table after those its foreign keys name). */
  tables: Array<{ name: string; rows: number }>;
  /** Each sequence's last value (null: never used). */
  sequences: Array<{ name: string; value: number | null }>;
}

/** One stored archive the backup's records name (the store itself is not in the backup). */
export interface ManifestEntry {
  id: string;
  videoKey: string;
  bytes: number | null;
  sha256: string | null;
  logKey: string | null;
  thumbnailKey: string | null;
}

/** Why a file cannot be restored: not a backup, damaged, or one this release cannot take. */
export class BackupError extends Error {}

/** The tables Kura owns (those of its schema, but the migrations' own bookkeeping), parents first. */
export async function kuraTables(client: pg.ClientBase): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>(
    `select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = current_schema() and c.relkind in ('r', 'p') and not c.relispartition and c.relname <> 'schema_migrations'
     order by c.relname`,
  );
  const { rows: edges } = await client.query<{ child: string; parent: string }>(
    `select c.relname as child, p.relname as parent from pg_constraint k
       join pg_class c on c.oid = k.conrelid join pg_class p on p.oid = k.confrelid
       join pg_namespace n on n.oid = c.relnamespace
     where k.contype = 'f' and n.nspname = current_schema() and k.conrelid <> k.confrelid`,
  );
  return parentsFirst(
    rows.map((r) => r.name),
    edges,
  );
}

/** `tables` ordered so each comes after every table it refers to (ties by name). */
export function parentsFirst(tables: readonly string[], edges: ReadonlyArray<{ child: string; parent: string }>): string[] {
  const ordered: string[] = [];
  const placed = new Set<string>();
  const visit = (table: string, path: Set<string>) => {
    if (placed.has(table) || path.has(table)) return;
    path.add(table);
    for (const edge of edges) if (edge.child === table && tables.includes(edge.parent)) visit(edge.parent, path);
    placed.add(table);
    ordered.push(table);
  };
  for (const table of tables) visit(table, new Set());
  return ordered;
}

/** The newest migration recorded in the database, or null before any. */
export async function newestMigration(client: pg.ClientBase): Promise<string | null> {
  const { rows } = await client.query<{ name: string }>('select name from schema_migrations order by name desc limit 1');
  return rows[0]?.name ?? null;
}

/** `name` quoted as an identifier of the current schema. */
export function quoted(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Reads a header line, or says why the file is not a backup this release reads. */
export function parseHeader(line: string | undefined, file: string): BackupHeader {
  let parsed: unknown;
  try {
    parsed = line === undefined ? undefined : JSON.parse(line);
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed) || parsed[0] !== BACKUP_MAGIC || typeof parsed[1] !== 'object' || parsed[1] === null)
    throw new BackupError(`${file} is not a Kura backup (it does not begin with a kura backup header)`);
  const header = parsed[1] as BackupHeader;
  if (header.format !== BACKUP_FORMAT)
    throw new BackupError(`${file} is a Kura backup of format ${String(header.format)}, which this release (format ${BACKUP_FORMAT}) cannot read`);
  if (typeof header.schema !== 'string' || !Array.isArray(header.tables) || !Array.isArray(header.sequences))
    throw new BackupError(`${file} is not a Kura backup (its header lacks the schema, tables or sequences)`);
  return header;
}
