import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { DEFAULT_SYSTEM_DIR, placePostgres } from './postgres-place.js';
import { initCluster, startPostgres } from './postgres-process.js';

const DATABASE = 'kura';
const USER = 'kura';
const SHUTDOWN_WAIT_MS = 30_000;
// loopback TCP only: no unix socket left in /tmp, nothing reachable from the network
const POSTGRES_FLAGS = ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='];

export interface EmbeddedDatabase {
  connectionString: string;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /** The cluster's name, `$KURA_DATA_DIR/postgres`: the cluster itself, or a symlink to it (see placePostgres). */
  dir: string;
  /** As root: where the cluster and PostgreSQL's programs go when the postgres user cannot reach them (KURA_SYSTEM_DIR). */
  systemDir?: string;
  /** PostgreSQL's own output. */
  log: (message: string) => void;
  /** Where things live when not in the data directory: one line each, worth an operator's eye. */
  note?: (message: string) => void;
}

/**
 * Starts Kura's own PostgreSQL cluster in `dir` on a free loopback port, creating it on first use.
 * A postmaster orphaned by a killed Kura is shut down first; one owned by a live Kura is shared.
 * Throws ConfigError (one sentence with the fix) when it cannot be placed, before creating anything.
 */
export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const { dir, log } = options;
  const place = await placePostgres({ link: dir, systemDir: options.systemDir ?? DEFAULT_SYSTEM_DIR });
  for (const note of place.notes) (options.note ?? log)(note);
  const cluster = place.clusterDir;
  const password = await readOrCreatePassword(`${dir}.password`);
  const running = await runningCluster(dir, cluster);
  if (running?.ownerAlive) {
    // another Kura (e.g. `kura serve` while the operator runs `kura import`) owns it: share it
    log(`using the embedded PostgreSQL of the running Kura (pid ${running.owner}) on port ${running.port}`);
    return { connectionString: urlFor(password, running.port, DATABASE), stop: async () => undefined };
  }
  if (running !== null) {
    log(`stopping PostgreSQL (pid ${running.postmaster}) left running by a Kura that did not shut down`);
    process.kill(running.postmaster, 'SIGINT'); // fast shutdown: roll back open transactions, checkpoint, exit
    await waitForExit(running.postmaster, SHUTDOWN_WAIT_MS);
  }
  await writeFile(ownerFile(dir), `${process.pid}\n`);
  const server = { programs: place.programs, dir: cluster, account: place.account, log };
  if (!existsSync(path.join(cluster, 'PG_VERSION'))) {
    log(`creating the embedded PostgreSQL cluster in ${cluster}`);
    await initCluster({ ...server, user: USER, password });
  }
  const port = await freePort();
  const postgres = await startPostgres({ ...server, port, flags: POSTGRES_FLAGS }).catch((error: unknown) => {
    throw new Error(`The embedded PostgreSQL in ${cluster} did not start; its log above says why`, { cause: error });
  });
  await ensureDatabase(urlFor(password, port, 'postgres'));
  return {
    connectionString: urlFor(password, port, DATABASE),
    async stop() {
      await postgres.stop();
      await rm(ownerFile(dir), { force: true });
    },
  };
}

function urlFor(password: string, port: number, database: string): string {
  return `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
}

function ownerFile(dir: string): string {
  return `${dir}.owner.pid`;
}

interface RunningCluster {
  postmaster: number;
  port: number;
  owner: number | null;
  ownerAlive: boolean;
}

/** The postmaster running on `cluster` (named `dir`), if any, and whether the Kura that started it still lives. */
async function runningCluster(dir: string, cluster: string): Promise<RunningCluster | null> {
  const lines = await readLines(path.join(cluster, 'postmaster.pid'));
  const postmaster = toPid(lines[0]);
  if (postmaster === null || !isAlive(postmaster) || !(await isPostgres(postmaster))) return null;
  const owner = toPid((await readLines(ownerFile(dir)))[0]);
  const ownerAlive = owner !== null && owner !== process.pid && isAlive(owner);
  return { postmaster, port: Number(lines[3]), owner, ownerAlive };
}

async function readLines(file: string): Promise<string[]> {
  try {
    return (await readFile(file, 'utf8')).split('\n');
  } catch {
    return [];
  }
}

function toPid(text: string | undefined): number | null {
  const pid = Number.parseInt(text ?? '', 10);
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** After a reboot the pid in a stale postmaster.pid may belong to anything: look before signalling. */
async function isPostgres(pid: number): Promise<boolean> {
  try {
    return (await readFile(`/proc/${pid}/comm`, 'utf8')).trim() === 'postgres';
  } catch {
    return process.platform !== 'linux';
  }
}

/** A process that is not our child gives no exit event: check its pid until it is gone. */
async function waitForExit(pid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) throw new Error(`PostgreSQL (pid ${pid}) did not stop within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
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
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [DATABASE]);
    if (rowCount === 0) await client.query(`create database ${DATABASE}`);
  } finally {
    await client.end();
  }
}
