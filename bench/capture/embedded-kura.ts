// Kura as a user runs it by default: `kura serve` on its embedded PostgreSQL (no DATABASE_URL), so
// the database is in Kura's own process tree and counted with it. The cluster is created before
// the server starts, with pg_stat_statements preloaded, so PostgreSQL's work can be told by query.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { startEmbeddedPostgres } from '../../src/adapters/embedded-postgres/embedded-postgres.js';
import { captureEnv } from './context.js';
import { query, startKura, type KuraServer } from './kura-run.js';
import { isPostmaster } from './postgres-tree.js';
import { readProc } from './proc-stat.js';

export interface EmbeddedKura {
  server: KuraServer;
  env: Record<string, string>;
  /** Kura's own database, for the bench's reads (a LISTEN and a few queries per capture; section single leaves its backend out). */
  databaseUrl: string;
}

/** Creates `dataDir`'s cluster with pg_stat_statements preloaded, then starts `kura serve` on it. */
export async function startEmbeddedKura(dataDir: string, cwd: string, profileDir: string | null, extra: Record<string, string>): Promise<EmbeddedKura> {
  await mkdir(dataDir, { recursive: true, mode: 0o755 });
  const cluster = await startEmbeddedPostgres({ dir: path.join(dataDir, 'postgres'), log: () => undefined });
  await query(cluster.connectionString, `alter system set shared_preload_libraries = 'pg_stat_statements'`, []);
  await cluster.stop();
  const { DATABASE_URL: _external, ...env } = captureEnv('', dataDir, extra);
  const server = await startKura(env, cwd, profileDir);
  const port = postmasterPort(server.pid);
  const databaseUrl = cluster.connectionString.replace(/:\d+\/kura$/, `:${port}/kura`);
  await query(databaseUrl, 'create extension if not exists pg_stat_statements', []);
  return { server, env, databaseUrl };
}

/** The port of the postmaster among `pid`'s children (`-p PORT` on its command line). */
function postmasterPort(pid: number): number {
  for (const child of readProc(`/proc/${pid}/task/${pid}/children`, '').split(' ').filter(Boolean)) {
    const argv = readProc(`/proc/${child}/cmdline`, '').split('\0');
    if (isPostmaster(argv)) return Number(argv[argv.indexOf('-p') + 1]);
  }
  throw new Error(`kura serve (pid ${pid}) runs no embedded PostgreSQL`);
}

/** Forgets the statements counted so far (before a capture is queued). */
export const resetStatements = (databaseUrl: string) => query(databaseUrl, 'select pg_stat_statements_reset()', []);

export interface Statement {
  query: string;
  calls: number;
  /** Time executing, planning included, ms (wall time in the backend, not CPU). */
  ms: number;
}

/** The statements PostgreSQL ran since the reset, the most time first (the bench's own reads left out). */
export async function topStatements(databaseUrl: string, limit: number): Promise<Statement[]> {
  const rows = await query<{ query: string; calls: string; ms: number }>(
    databaseUrl,
    `select regexp_replace(query, '\\s+', ' ', 'g') as query, calls, total_exec_time + total_plan_time as ms
       from pg_stat_statements where query not like '%pg_stat_statements%' order by ms desc limit $1`,
    [limit],
  );
  return rows.map((r) => ({ query: r.query, calls: Number(r.calls), ms: r.ms }));
}

/** Every statement since the reset (the bench's own reads of pg_stat_statements left out), and the sessions the cluster has opened in all. */
export async function statementTotals(databaseUrl: string): Promise<{ calls: number; ms: number; sessions: number }> {
  const [row] = await query<{ calls: number; ms: number; sessions: number }>(
    databaseUrl,
    `select (select coalesce(sum(calls), 0)::int from pg_stat_statements where query not like '%pg_stat_statements%') as calls,
            (select coalesce(sum(total_exec_time + total_plan_time), 0) from pg_stat_statements where query not like '%pg_stat_statements%') as ms,
            (select coalesce(sum(sessions), 0)::int from pg_stat_database) as sessions`,
    [],
  );
  return row ?? { calls: 0, ms: 0, sessions: 0 };
}
