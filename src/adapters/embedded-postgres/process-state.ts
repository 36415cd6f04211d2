import { readFile } from 'node:fs/promises';

/** Whether a process of this pid exists (one of another user's counts too). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** State and start time from `/proc/<pid>/stat`; null without /proc or when the process is gone. */
export async function processStat(pid: number): Promise<{ state: string; startTime: string } | null> {
  try {
    const text = await readFile(`/proc/${pid}/stat`, 'utf8');
    // the command name (field 2) may hold spaces and parentheses: count from the last ')'
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '', startTime: fields[19] ?? '' };
  } catch {
    return null;
  }
}

/** Alive and not a zombie (our own child waits as one until Node reaps it). */
export async function isRunning(pid: number): Promise<boolean> {
  if (!isAlive(pid)) return false;
  const stat = await processStat(pid);
  if (stat === null) return process.platform !== 'linux';
  return stat.state !== 'Z';
}

/** A process that is not our child gives no exit event: check its pid until it is gone. */
export async function waitForExit(pid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid) && (await processStat(pid))?.state !== 'Z') {
    if (Date.now() > deadline) throw new Error(`PostgreSQL (pid ${pid}) did not stop within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The lines of a pid file (PostgreSQL's postmaster.pid, Kura's owner file); none when it cannot be read. */
export async function readLines(file: string): Promise<string[]> {
  try {
    return (await readFile(file, 'utf8')).split('\n');
  } catch {
    return [];
  }
}

/** A pid file's line as a pid; null when it is not one. */
export function toPid(text: string | undefined): number | null {
  const pid = Number.parseInt(text ?? '', 10);
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}
