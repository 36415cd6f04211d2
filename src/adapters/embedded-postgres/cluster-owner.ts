// Decisions: docs/decisions/0026-embedded-postgresql-ownership.md
import { rm, writeFile } from 'node:fs/promises';
import { isAlive, processStat, readLines, toPid } from './process-state.js';

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

/** Whether the owner keeps the cluster for others (`serve`) or only for itself (`command`). */
export type OwnerRole = 'serve' | 'command';

/** The owner file of the cluster named `dir`. */
export function ownerFile(dir: string): string {
  return `${dir}.owner.pid`;
}

/** This process, as an owner. */
export async function thisProcess(role: OwnerRole): Promise<ClusterOwner> {
  return { pid: process.pid, startTime: (await processStat(process.pid))?.startTime ?? null, role };
}

/** Names `owner` in the owner file. */
export async function writeOwner(dir: string, owner: ClusterOwner): Promise<void> {
  await writeFile(ownerFile(dir), `${owner.pid}\n${owner.startTime ?? ''}\n${owner.role}\n`);
}

/** Who the owner file names; null when there is none (or it names no pid). */
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

/** Whether `a` is the very process `b` (same pid and start time). */
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
