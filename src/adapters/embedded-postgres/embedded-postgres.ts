// Decisions: docs/decisions/0026-embedded-postgresql-ownership.md, docs/decisions/0086-one-wake-up-a-minute.md, docs/decisions/0106-what-runs-when-idle.md
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { DEFAULT_SYSTEM_DIR, placePostgres } from './cluster-place.js';
import { initCluster, startPostgres, type ClusterOptions } from './postgres-programs.js';
import { isOwnerAlive, readOwner, releaseOwner, sameOwner, thisProcess, writeOwner, type ClusterOwner, type OwnerRole } from './cluster-owner.js';
import { keepPostgres, type Postmaster } from './postmaster-keeper.js';
import { isAlive, readLines, toPid, waitForExit } from './process-state.js';

const DATABASE = 'kura';
const USER = 'kura';
const SHUTDOWN_WAIT_MS = 30_000;
// loopback TCP only: no unix socket left in /tmp, nothing reachable from the network; autovacuum
// looks at each database every 15 minutes, not every minute: its workers (one forked for each of
// the three databases in turn, 10–20 ms of CPU each) were most of what an idle cluster costs; the
// WAL writer wakes every 10 s, not every 0.2 s, while anything was written in the last seconds:
// commits flush their own WAL (synchronous_commit stays on), so its rounds only woke it (decision 0100);
// the background writer's rounds are 10 s apart, not 0.2 s, so with nothing to write it sleeps
// 500 s, not 10 s: Kura's few writes are flushed by the checkpoints and the backends (decision 0086)
const POSTGRES_FLAGS = [
  ...['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
  ...['-c', 'autovacuum_naptime=900', '-c', 'wal_writer_delay=10s', '-c', 'bgwriter_delay=10s'],
];

/** The running embedded PostgreSQL as a caller uses it: where to connect, and how to let go of it. */
export interface EmbeddedDatabase {
  connectionString: string;
  stop(): Promise<void>;
}

/** Where the embedded PostgreSQL lives, who this process is to it, and whom to tell what. */
export interface EmbeddedOptions {
  /** The cluster's name, `$KURA_DATA_DIR/postgres`: the cluster itself, or a symlink to it (see placePostgres). */
  dir: string;
  /** As root: where the cluster and PostgreSQL's programs go when the postgres user cannot reach them (KURA_SYSTEM_DIR). */
  systemDir?: string;
  /** PostgreSQL's own output. */
  log: (message: string) => void;
  /** Where things live when not in the data directory: one line each, worth an operator's eye. */
  note?: (message: string) => void;
  /**
   * `serve` (`kura serve`) stops a cluster whose owner died and takes over one a CLI command
   * started; `command` (the default: CLI commands) never stops a cluster it did not start.
   */
  role?: OwnerRole;
  /** Port to start PostgreSQL on; default a free one. */
  port?: number;
  /**
   * Set: a cluster this process owns is watched, and started again on its port when PostgreSQL
   * exits unexpectedly; `onLost` is told when that fails (the database cannot come back).
   */
  onLost?: (error: Error) => void;
}

/**
 * Starts Kura's own PostgreSQL cluster in `dir` on a free loopback port, creating it on first use.
 * One owned by a live Kura is shared; one whose owner died is stopped and started again by
 * `kura serve`, and shared as it is by CLI commands. Throws ConfigError (one sentence with the
 * fix) when it cannot be placed, before creating anything.
 */
export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const { dir, log } = options;
  const role = options.role ?? 'command';
  // a command next to a running cluster needs only its port and password: placing a cluster
  // (the postgres account, what it may enter: child processes each) is for starting one
  const shared = role === 'command' ? await shareRunning(dir, log) : null;
  if (shared !== null) return shared;
  const place = await placePostgres({ link: dir, systemDir: options.systemDir ?? DEFAULT_SYSTEM_DIR });
  for (const note of place.notes) (options.note ?? log)(note);
  const cluster = place.clusterDir;
  const password = await readOrCreatePassword(`${dir}.password`);
  const me = await thisProcess(role);
  const server: ClusterOptions = { programs: place.programs, dir: cluster, account: place.account, log };
  const running = await runningPostmaster(cluster);
  if (running !== null) {
    const owner = await readOwner(dir);
    const ownerAlive = owner !== null && (await isOwnerAlive(owner));
    const url = urlFor(password, running.port, DATABASE);
    if (ownerAlive && role === 'serve' && owner.role === 'command') {
      // a CLI command started it and would stop it on exit: `kura serve` keeps it instead
      await writeOwner(dir, me);
      log(`taking over the embedded PostgreSQL (pid ${running.pid}) that a kura command (pid ${owner.pid}) started`);
      return owned(url, dir, me, server, running, options);
    }
    if (ownerAlive || role === 'command') return useShared(url, running, owner, ownerAlive, log);
    log(`stopping PostgreSQL (pid ${running.pid}) left running by a Kura that did not shut down`);
    process.kill(running.pid, 'SIGINT'); // fast shutdown: roll back open transactions, checkpoint, exit
    await waitForExit(running.pid, SHUTDOWN_WAIT_MS);
  }
  await writeOwner(dir, me);
  if (!existsSync(path.join(cluster, 'PG_VERSION'))) {
    log(`creating the embedded PostgreSQL cluster in ${cluster}`);
    await initCluster({ ...server, user: USER, password });
  }
  const port = options.port ?? (await freePort());
  const started = await start(server, port);
  await ensureDatabase(urlFor(password, port, 'postgres'));
  return owned(urlFor(password, port, DATABASE), dir, me, server, started, options);
}

/** The running cluster in `dir`, used as it is (`kura user add` while `kura serve` runs); null when none runs or its password is not there yet. */
async function shareRunning(dir: string, log: (message: string) => void): Promise<EmbeddedDatabase | null> {
  const running = await runningPostmaster(dir);
  if (running === null || !existsSync(`${dir}.password`)) return null;
  const owner = await readOwner(dir);
  const url = urlFor(await readOrCreatePassword(`${dir}.password`), running.port, DATABASE);
  return useShared(url, running, owner, owner !== null && (await isOwnerAlive(owner)), log);
}

/** A running cluster this process uses and never stops: a server may use it. */
function useShared(url: string, running: Postmaster, owner: ClusterOwner | null, ownerAlive: boolean, log: (message: string) => void): EmbeddedDatabase {
  const whose = ownerAlive && owner !== null ? `of the running Kura (pid ${owner.pid})` : 'left running by a Kura that did not shut down';
  log(`using the embedded PostgreSQL ${whose} on port ${running.port}`);
  return { connectionString: url, stop: async () => undefined };
}

/** The cluster this process owns: watched when `onLost` is set, stopped by `stop` while the owner file names this process. */
function owned(url: string, dir: string, me: ClusterOwner, server: ClusterOptions, first: Postmaster, options: EmbeddedOptions): EmbeddedDatabase {
  const keeper = keepPostgres({
    first,
    start: () => start(server, first.port),
    stillOurs: async () => sameOwner(await readOwner(dir), me),
    log: options.note ?? options.log,
    ...(options.onLost ? { onLost: options.onLost } : {}),
  });
  return {
    connectionString: url,
    async stop() {
      const postmaster = keeper.stop();
      if (await releaseOwner(dir, me)) await postmaster.stop();
    },
  };
}

async function start(server: ClusterOptions, port: number): Promise<Postmaster> {
  const postgres = await startPostgres({ ...server, port, flags: POSTGRES_FLAGS }).catch((error: unknown) => {
    throw new Error(`The embedded PostgreSQL in ${server.dir} did not start; its log above says why`, { cause: error });
  });
  return { pid: postgres.pid, port, exited: postgres.exited, stop: () => postgres.stop() };
}

function urlFor(password: string, port: number, database: string): string {
  return `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
}

/** The postmaster running on `cluster`, if any. */
async function runningPostmaster(cluster: string): Promise<Postmaster | null> {
  const lines = await readLines(path.join(cluster, 'postmaster.pid'));
  const pid = toPid(lines[0]);
  if (pid === null || !isAlive(pid) || !(await isPostgres(pid))) return null;
  return {
    pid,
    port: Number(lines[3]),
    async stop() {
      process.kill(pid, 'SIGINT');
      await waitForExit(pid, SHUTDOWN_WAIT_MS);
    },
  };
}

/** After a reboot the pid in a stale postmaster.pid may belong to anything: look before signalling. */
async function isPostgres(pid: number): Promise<boolean> {
  try {
    return (await readFile(`/proc/${pid}/comm`, 'utf8')).trim() === 'postgres';
  } catch {
    return process.platform !== 'linux';
  }
}

async function readOrCreatePassword(file: string): Promise<string> {
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  const password = randomBytes(24).toString('base64url');
  await writeFile(file, `${password}\n`, { mode: 0o600 });
  return password;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

async function ensureDatabase(adminUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  client.on('error', () => undefined); // a lost connection fails the query in flight
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [DATABASE]);
    if (rowCount === 0) await client.query(`create database ${DATABASE}`);
  } finally {
    await client.end();
  }
}
