// Decisions: docs/decisions/0027-embedded-postgresql-as-root.md
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { ConfigError } from '../../shared/config-error.js';

const run = promisify(execFile);

/** The system account PostgreSQL runs as when Kura runs as root (PostgreSQL refuses to run as root). */
export interface PostgresAccount {
  uid: number;
  gid: number;
}

/** The name of that account. */
export const POSTGRES_ACCOUNT = 'postgres';

/**
 * The `postgres` account's ids, creating the account (a system user in its own group, as
 * PostgreSQL's Debian package does) when it does not exist. Throws ConfigError when it cannot.
 */
export async function ensurePostgresAccount(): Promise<PostgresAccount> {
  const found = await accountIds();
  if (found !== null) return found;
  try {
    await run('groupadd', ['--force', '--system', POSTGRES_ACCOUNT]);
    await run('useradd', ['--system', '--gid', POSTGRES_ACCOUNT, '--no-create-home', '--shell', '/usr/sbin/nologin', POSTGRES_ACCOUNT]);
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'useradd or groupadd is not installed' : firstLine(error);
    throw new ConfigError([
      `As root, Kura runs its PostgreSQL as the system user "${POSTGRES_ACCOUNT}", which does not exist and could not be created (${why}): create it (useradd --system ${POSTGRES_ACCOUNT}) or set DATABASE_URL to a PostgreSQL of your own.`,
    ]);
  }
  const created = await accountIds();
  if (created === null)
    throw new ConfigError([
      `The system user "${POSTGRES_ACCOUNT}" was created but cannot be found: check /etc/passwd, or set DATABASE_URL to a PostgreSQL of your own.`,
    ]);
  return created;
}

async function accountIds(): Promise<PostgresAccount | null> {
  try {
    const [uid, gid] = await Promise.all([run('id', ['-u', POSTGRES_ACCOUNT]), run('id', ['-g', POSTGRES_ACCOUNT])]);
    return { uid: Number.parseInt(uid.stdout, 10), gid: Number.parseInt(gid.stdout, 10) };
  } catch {
    return null;
  }
}

/** Whether `command args` exits 0 when run as the account (its own uid and gid, no other groups: as PostgreSQL will run). */
export function runsAs(account: PostgresAccount, command: string, args: string[]): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { uid: account.uid, gid: account.gid, stdio: 'ignore', cwd: '/' });
    child.once('error', () => resolve(false));
    child.once('exit', (code) => resolve(code === 0));
  });
}

/** Whether the account can enter `dir` (search permission on it and every directory above). */
export function canEnter(account: PostgresAccount, dir: string): Promise<boolean> {
  return runsAs(account, '/bin/sh', ['-c', 'cd -- "$1"', 'kura-probe', dir]);
}

function firstLine(error: unknown): string {
  const stderr = (error as { stderr?: string }).stderr?.trim();
  return (stderr || (error as Error).message).split('\n')[0] as string;
}
