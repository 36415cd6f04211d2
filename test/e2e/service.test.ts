import { execFile } from 'node:child_process';
import { appendFile, chmod, lstat, mkdir, mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { readPackageInfo } from '../../src/adapters/os/package-info.js';
import { spawnKura } from '../support/cli.js';

const run = promisify(execFile);
const checkout = readPackageInfo().root;

/** Owner name and permission bits of a path, as `stat -c '%U %a'` prints them. */
async function ownerAndMode(file: string): Promise<string> {
  const { stdout } = await run('stat', ['-c', '%U:%G %a', file]);
  return stdout.trim();
}

/** The real uid of a process (its /proc status). */
async function uidOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
}

// The suite runs as root (CI, and the README's test command), as `--service` must.
describe('scripts/install-system-deps.sh --service', () => {
  let root = '';
  afterAll(async () => {
    if (root !== '') await rm(root, { recursive: true, force: true });
  });

  it('installs a service that runs Kura as its own user, with its cluster in the data directory, and stops cleanly on SIGTERM', async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'kura-service-'));
    await chmod(root, 0o755); // as / is: the kura user must reach /opt/kura and /var/lib/kura beneath it
    const install = () =>
      run(path.join(checkout, 'scripts/install-system-deps.sh'), ['--service'], {
        env: { ...process.env, KURA_SERVICE_ROOT: root, KURA_SYSTEM_DIR: path.join(root, 'var/lib/kura') },
      });
    // the clusters of a Kura run as root (the README's first command) are never taken over
    await mkdir(path.join(root, 'var/lib/kura/postgres'), { recursive: true });
    const refused = await install().catch((error: { code: number; stderr: string }) => error);
    expect(refused).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/var\/lib\/kura\/postgres holds the database of a Kura run as root; back it up first/),
    });
    expect(await readdir(root)).toEqual(['var']); // nothing installed
    await rm(path.join(root, 'var/lib/kura/postgres'), { recursive: true });

    const installed = await install();
    expect(installed.stdout).toContain(`kura: installed in ${root}/opt/kura`);

    const { stdout: passwd } = await run('getent', ['passwd', 'kura']);
    expect(passwd).toMatch(/^kura:x:\d+:\d+:[^:]*:\/var\/lib\/kura:\/usr\/sbin\/nologin$/m);
    const kuraUid = Number(passwd.split(':')[2]);
    expect(kuraUid).toBeLessThan(1000); // a system user
    expect(await ownerAndMode(path.join(root, 'var/lib/kura'))).toBe('kura:kura 750');
    expect(await ownerAndMode(path.join(root, 'etc/kura/kura.env'))).toBe('root:kura 640');
    expect(await ownerAndMode(path.join(root, 'opt/kura/package.json'))).toBe('root:root 644');
    const settings = await readFile(path.join(root, 'etc/kura/kura.env'), 'utf8');
    expect(settings).toContain(`KURA_DATA_DIR=${root}/var/lib/kura/data\n`);
    expect(settings).toContain('# PORT=8080\n'); // .env.example's settings, documented but not set
    // what systemd itself checks of a unit: its options, and that what it runs is there
    const unit = path.join(root, 'etc/systemd/system/kura.service');
    await expect(run('systemd-analyze', ['verify', unit])).resolves.toMatchObject({ stderr: '' });
    expect(await readFile(unit, 'utf8')).toContain(`ExecStart=${root}/opt/kura/node_modules/.bin/node ${root}/opt/kura/dist/src/cli.js serve`);

    await appendFile(path.join(root, 'etc/kura/kura.env'), 'PORT=0\n');
    // as root, the installed `kura` command runs Kura as the kura user, as the unit does
    const kura = spawnKura(['serve'], {}, root, { program: path.join(root, 'usr/local/bin/kura') });
    const listening = await kura.waitForLog((line) => line.msg === 'kura api listening');
    expect(await uidOf(kura.child.pid!)).toBe(kuraUid);
    const ready = await fetch(new URL('/readyz', listening.url as string));
    expect(ready.status).toBe(200);
    // no root workaround: the cluster is a folder in the data directory, kura's
    const cluster = path.join(root, 'var/lib/kura/data/postgres');
    expect((await lstat(cluster)).isDirectory()).toBe(true);
    expect(await ownerAndMode(cluster)).toBe('kura:kura 700');
    expect((await stat(path.join(cluster, 'PG_VERSION'))).isFile()).toBe(true);

    kura.child.kill('SIGTERM');
    const exit = await kura.exited;
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(exit.stdout).toContain('"msg":"stopped"');
    // the embedded PostgreSQL stopped with it: nothing of the kura user's is left running
    const { stdout: processes } = await run('ps', ['-u', 'kura', '-o', 'pid=']).catch((error: { stdout: string }) => error);
    expect(processes.trim()).toBe('');
    expect(await readdir(path.join(root, 'opt'))).toEqual(['kura']); // no staged copy left behind
  });
});
