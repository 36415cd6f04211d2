import { readFile, rm, writeFile } from 'node:fs/promises';

/**
 * Who started the embedded PostgreSQL: `$KURA_DATA_DIR/postgres.owner.pid` holds the owner's pid,
 * its start time (so a pid reused after a crash names nobody) and its role. The owner stops the
 * cluster when it exits; other Kura processes share it.
 */
export interface ClusterOwner {
  pid: number;
  /** Clock ticks after boot (`/proc/<pid>/stat` field 22); null where there is no /proc. */
  startTime: string | null;
  /** `serve` keeps the cluster running for others; `command` (a CLI command) only for itself. */
  role: OwnerRole;
}

export type OwnerRole = 'serve' | 'command';

export function ownerFile(dir: string): string {
  return `${dir}.owner.pid`;
}

/** This process, as an owner. */
export async function thisProcess(role: OwnerRole): Promise<ClusterOwner> {
  return { pid: process.pid, startTime: (await processStat(process.pid))?.startTime ?? null, role };
}

export async function writeOwner(dir: string, owner: ClusterOwner): Promise<void> {
  await writeFile(ownerFile(dir), `${owner.pid}\n${owner.startTime ?? ''}\n${owner.role}\n`);
}

export async function readOwner(dir: string): Promise<ClusterOwner | null> {
  const [pid, startTime, role] = await readLines(ownerFile(dir));
  const parsed = toPid(pid);
  if (parsed === null) return null;
  return { pid: parsed, startTime: startTime || null, role: role === 'command' ? 'command' : 'serve' };
}

/** Removes the owner file if it still names `owner` (a `kura serve` may have taken the cluster over). */
export async function releaseOwner(dir: string, owner: ClusterOwner): Promise<boolean> {
  if (!sameOwner(await readOwner(dir), owner)) return false;
  await rm(ownerFile(dir), { force: true });
  return true;
}

export function sameOwner(a: ClusterOwner | null, b: ClusterOwner): boolean {
  return a !== null && a.pid === b.pid && a.startTime === b.startTime;
}

/**
 * Whether `owner` still runs: its pid is alive, not a zombie (a killed Kura its parent has not
 * reaped yet), and started when the owner did (not a later process given the same pid).
 */
export async function isOwnerAlive(owner: ClusterOwner): Promise<boolean> {
  if (owner.pid === process.pid || !isAlive(owner.pid)) return false;
  const stat = await processStat(owner.pid);
  if (stat === null) return process.platform !== 'linux';
  if (stat.state === 'Z' || stat.state === 'X') return false;
  return owner.startTime === null || owner.startTime === stat.startTime;
}

/** State and start time from `/proc/<pid>/stat`; null without /proc or when the process is gone. */
async function processStat(pid: number): Promise<{ state: string; startTime: string } | null> {
  try {
    const text = await readFile(`/proc/${pid}/stat`, 'utf8');
    // the command name (field 2) may hold spaces and parentheses: count from the last ')'
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '', startTime: fields[19] ?? '' };
  } catch {
    return null;
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A process that is not our child gives no exit event: check its pid until it is gone. */
export async function waitForExit(pid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid) && (await processStat(pid))?.state !== 'Z') {
    if (Date.now() > deadline) throw new Error(`PostgreSQL (pid ${pid}) did not stop within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function readLines(file: string): Promise<string[]> {
  try {
    return (await readFile(file, 'utf8')).split('\n');
  } catch {
    return [];
  }
}

export function toPid(text: string | undefined): number | null {
  const pid = Number.parseInt(text ?? '', 10);
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}
