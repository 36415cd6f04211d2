import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { runKura, spawnKura, type KuraProcess } from '../support/cli.js';
import { buildRecords } from '../support/factories.js';
import { readPackageInfo } from '../../src/adapters/os/package-info.js';

// `kura serve` exactly as an operator runs it: no DATABASE_URL, so Kura starts its own PostgreSQL.
let dataDir: string;
beforeEach(async () => {
  const cwd = await mkdtemp(path.join(os.tmpdir(), 'kura-serve-'));
  await chmod(cwd, 0o755); // PostgreSQL runs as the postgres user and must reach its directory
  dataDir = path.join(cwd, 'data');
});

const env = () => ({ KURA_DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info' });

async function serve(): Promise<{ kura: KuraProcess; url: string }> {
  const kura = spawnKura(['serve'], env(), path.dirname(dataDir));
  const listening = await kura.waitForLog((line) => line.msg === 'kura api listening');
  return { kura, url: listening.url as string };
}

const postmasterPid = async () => Number((await readFile(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0]);
const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // a stopped orphan whose new parent has not reaped it yet is a zombie: stopped all the same
  return !readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /s, '')
    .startsWith('Z');
};

describe('kura serve on its embedded PostgreSQL', () => {
  it('starts, answers, shares its database with `kura import`, and stops PostgreSQL on SIGTERM', async () => {
    const { kura, url } = await serve();
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    const pid = await postmasterPid();

    const file = path.join(dataDir, '..', 'records.json');
    await writeFile(file, JSON.stringify(buildRecords(30)));
    const imported = await runKura(['import', file], env(), path.dirname(dataDir));
    expect(imported.code, imported.stderr).toBe(0);
    const history = await fetch(`${url}/api/history?limit=100`);
    expect(history.headers.get('x-kura-pagination-total')).toBe('30');
    expect(await history.json()).toHaveLength(30);

    kura.child.kill('SIGTERM');
    const exit = await kura.exited;
    expect(exit.code).toBe(0);
    expect(isAlive(pid)).toBe(false);
    expect(existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
  });

  it('starts its PostgreSQL again on the same port when it is killed, and answers again with the data kept', async () => {
    const { kura, url } = await serve();
    const file = path.join(dataDir, '..', 'records.json');
    await writeFile(file, JSON.stringify(buildRecords(5)));
    expect((await runKura(['import', file], env(), path.dirname(dataDir))).code).toBe(0);
    // postmaster.pid: the pid on its first line, the port on its fourth
    const pidFile = async () => (await readFile(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n');
    const [killed, , , port] = await pidFile();
    const restarted = kura.waitForLog((line) => typeof line.msg === 'string' && line.msg.startsWith('the embedded PostgreSQL runs again'));

    process.kill(Number(killed), 'SIGKILL');
    await restarted;
    const [pid, , , portNow] = await pidFile();
    expect(pid).not.toBe(killed);
    expect(portNow).toBe(port); // every pool's connection string stays valid
    await expect.poll(async () => (await fetch(`${url}/readyz`)).status, { timeout: 15_000 }).toBe(200);
    expect((await (await fetch(`${url}/api/stats`)).json()).videoAmount).toBe(5);

    kura.child.kill('SIGTERM');
    expect((await kura.exited).code).toBe(0);
    expect(isAlive(Number(pid))).toBe(false);
  });

  it('recovers after kill -9: the orphaned PostgreSQL is stopped, data is kept, Kura starts again', async () => {
    const first = await serve();
    const file = path.join(dataDir, '..', 'records.json');
    await writeFile(file, JSON.stringify(buildRecords(12)));
    expect((await runKura(['import', file], env(), path.dirname(dataDir))).code).toBe(0);
    const orphan = await postmasterPid();

    first.kura.child.kill('SIGKILL');
    await first.kura.exited;
    expect(isAlive(orphan)).toBe(true); // left behind, as after a real crash

    // a CLI command finding a PostgreSQL whose Kura died uses it and leaves it running
    const added = await runKura(['user', 'add', 'operator'], env(), path.dirname(dataDir), 'a long passphrase\n');
    expect(added.code, added.stderr).toBe(0);
    expect(isAlive(orphan)).toBe(true);

    const second = await serve(); // only `kura serve` takes the cluster over
    expect(isAlive(orphan)).toBe(false);
    expect(await postmasterPid()).not.toBe(orphan);
    const stats = await (await fetch(`${second.url}/api/stats`)).json();
    expect(stats.videoAmount).toBe(12);

    second.kura.child.kill('SIGINT');
    expect((await second.kura.exited).code).toBe(0);
  });
});

/** `kura serve` under a parent that never reaps it (`exec sleep`): killed, it stays a zombie. */
function serveUnreaped() {
  const cli = `${readPackageInfo().root}/dist/src/cli.js`;
  const holder = spawn('sh', ['-c', `"${process.execPath}" "${cli}" serve & exec sleep 600`], {
    cwd: path.dirname(dataDir),
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...env() },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const listening = new Promise<void>((resolve) => holder.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('kura api listening') && resolve()));
  return { holder, listening };
}

const processState = async (pid: number) => {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
};

describe('kura serve restarted at once after kill -9', () => {
  it('takes over from its zombie, and a CLI command then shares the cluster without stopping it', async () => {
    const first = serveUnreaped();
    await first.listening;
    const killed = Number((await readFile(path.join(dataDir, 'postgres.owner.pid'), 'utf8')).split('\n')[0]);
    const orphan = await postmasterPid();
    process.kill(killed, 'SIGKILL');
    await expect.poll(() => processState(killed)).toBe('Z'); // dead, but its pid still answers kill(pid, 0)

    const second = await serve(); // immediately: the zombie is not an owner
    expect(isAlive(orphan)).toBe(false);
    const postmaster = await postmasterPid();
    expect(postmaster).not.toBe(orphan);
    first.holder.kill('SIGKILL'); // the zombie is reaped; its pid names nobody now

    const added = await runKura(['user', 'add', 'operator', '--admin'], env(), path.dirname(dataDir), 'a long passphrase\n');
    expect(added.code, added.stderr).toBe(0);
    const migrated = await runKura(['migrate'], env(), path.dirname(dataDir));
    expect(migrated.code, migrated.stderr).toBe(0);

    expect(await postmasterPid()).toBe(postmaster); // shared, not stopped
    expect((await fetch(`${second.url}/readyz`)).status).toBe(200);
    const user = await fetch(`${second.url}/api/user/local/operator`);
    expect(user.status).toBe(200); // the account the CLI wrote is the server's
    expect(second.kura.child.exitCode).toBeNull();

    second.kura.child.kill('SIGTERM');
    expect((await second.kura.exited).code).toBe(0);
    expect(isAlive(postmaster)).toBe(false);
  });
});
