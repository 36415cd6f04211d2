import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { runKura, spawnKura, type KuraProcess } from '../support/cli.js';
import { buildRecords } from '../support/factories.js';

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
    return true;
  } catch {
    return false;
  }
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

  it('recovers after kill -9: the orphaned PostgreSQL is stopped, data is kept, Kura starts again', async () => {
    const first = await serve();
    const file = path.join(dataDir, '..', 'records.json');
    await writeFile(file, JSON.stringify(buildRecords(12)));
    expect((await runKura(['import', file], env(), path.dirname(dataDir))).code).toBe(0);
    const orphan = await postmasterPid();

    first.kura.child.kill('SIGKILL');
    await first.kura.exited;
    expect(isAlive(orphan)).toBe(true); // left behind, as after a real crash

    const second = await serve();
    expect(isAlive(orphan)).toBe(false);
    expect(await postmasterPid()).not.toBe(orphan);
    const stats = await (await fetch(`${second.url}/api/stats`)).json();
    expect(stats.videoAmount).toBe(12);

    second.kura.child.kill('SIGINT');
    expect((await second.kura.exited).code).toBe(0);
  });
});
