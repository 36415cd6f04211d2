// Decisions: docs/decisions/0027-embedded-postgresql-as-root.md
import { createHash } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { access, chmod, cp, lstat, mkdir, readdir, readlink, realpath, rename, rm, rmdir, stat, symlink } from 'node:fs/promises';
import { userInfo } from 'node:os';
import path from 'node:path';
import { ConfigError } from '../../shared/config-error.js';
import { canEnter, ensurePostgresAccount, runsAs, type PostgresAccount } from './system-account.js';
import { bundledPrograms, postgresBinary, type PostgresPrograms } from './postgres-programs.js';

/** As root, where Kura keeps what the postgres user must reach when the data directory or the installation is out of its reach. */
export const DEFAULT_SYSTEM_DIR = '/var/lib/kura';

/** Where the embedded PostgreSQL runs from and keeps its cluster, and as whom. */
export interface PostgresPlace {
  programs: PostgresPrograms;
  /** The cluster directory PostgreSQL is given (the symlink's target when the cluster lives outside the data directory). */
  clusterDir: string;
  /** Null: PostgreSQL runs as this process's user. */
  account: PostgresAccount | null;
  /** Said at start at info level: where things live, when not where an operator would look first. */
  notes: string[];
}

/**
 * Decides where the embedded PostgreSQL named `link` (`$KURA_DATA_DIR/postgres`) lives and makes
 * it ready. As non-root, or as root when the `postgres` user can enter the data directory, that
 * is `link` itself. Otherwise the cluster is kept in `systemDir/postgres/<id>` with `link` a
 * symlink to it (later starts follow the symlink), and PostgreSQL's programs are copied to
 * `systemDir/postgresql-<version>` when the postgres user cannot run them from node_modules.
 * Every check comes before anything is created; a refusal is a ConfigError of one sentence.
 */
export async function placePostgres(options: { link: string; systemDir: string }): Promise<PostgresPlace> {
  const { link, systemDir } = options;
  const dataDir = path.dirname(link);
  await checkDataDir(dataDir);
  const bundled = await bundledPrograms();
  if (userInfo().uid !== 0) {
    await mkdir(dataDir, { recursive: true });
    return { programs: bundled, clusterDir: link, account: null, notes: [] };
  }
  const account = await ensurePostgresAccount();
  const copyPrograms = !(await runsAs(account, postgresBinary(bundled), ['--version']));
  if (copyPrograms) await checkSystemDir(systemDir, account, `run PostgreSQL from ${bundled.root}`, 'its programs');
  const cluster = await planCluster(link, account, systemDir);
  if (cluster.relocate) await checkSystemDir(systemDir, account, `enter ${dataDir}`, 'the cluster');

  const notes: string[] = [];
  await mkdir(dataDir, { recursive: true });
  let programs = bundled;
  if (copyPrograms) {
    programs = await copyProgramsTo(bundled, systemDir, account);
    notes.push(`PostgreSQL runs from ${programs.root}: the postgres user cannot reach ${bundled.root}`);
  }
  if (cluster.relocate) {
    if (cluster.emptyDirInTheWay) await rmdir(link);
    await makeDirs(path.dirname(cluster.dir));
    await symlink(cluster.dir, link);
  } else if (cluster.dir !== link) {
    await makeDirs(path.dirname(cluster.dir)); // the symlink's target may have to be made again
  }
  if (cluster.note !== null) notes.push(cluster.note);
  return { programs, clusterDir: cluster.dir, account, notes };
}

interface ClusterPlan {
  dir: string;
  relocate: boolean;
  emptyDirInTheWay: boolean;
  note: string | null;
}

async function planCluster(link: string, account: PostgresAccount, systemDir: string): Promise<ClusterPlan> {
  const dataDir = path.dirname(link);
  const existing = await lstat(link).catch(() => null);
  if (existing?.isSymbolicLink()) {
    const target = path.resolve(dataDir, await readlink(link));
    return { dir: target, relocate: false, emptyDirInTheWay: false, note: `the embedded PostgreSQL cluster is kept in ${target} (${link} links there)` };
  }
  if (existing !== null && (await canEnter(account, link))) return { dir: link, relocate: false, emptyDirInTheWay: false, note: null };
  const nearest = await nearestExisting(dataDir);
  if (existing === null && (await canEnter(account, nearest.path))) return { dir: link, relocate: false, emptyDirInTheWay: false, note: null };

  const realDataDir = path.join(await realpath(nearest.path), path.relative(nearest.path, dataDir));
  const target = path.join(systemDir, 'postgres', createHash('sha256').update(realDataDir).digest('hex').slice(0, 16));
  const emptyDirInTheWay = existing !== null && existing.isDirectory() && (await readdir(link)).length === 0;
  if (existing !== null && !emptyDirInTheWay) {
    refuse(
      `The postgres user cannot enter ${link}, which holds Kura's PostgreSQL cluster: with Kura stopped, move it to ${target} and leave a symlink in its place (mv ${link} ${target} && ln -s ${target} ${link}), or move KURA_DATA_DIR where the postgres user can enter.`,
    );
  }
  if ((await lstat(path.join(target, 'PG_VERSION')).catch(() => null)) !== null && (await lstat(`${link}.password`).catch(() => null)) === null) {
    refuse(
      `${target} holds the PostgreSQL cluster of an earlier Kura with this data directory, but its password file ${link}.password is gone: restore that file, or delete ${target} to start afresh (its data is lost).`,
    );
  }
  return {
    dir: target,
    relocate: true,
    emptyDirInTheWay,
    note: `the embedded PostgreSQL cluster is kept in ${target} (${link} links there): the postgres user cannot enter ${dataDir}`,
  };
}

async function checkDataDir(dataDir: string): Promise<void> {
  const nearest = await nearestExisting(dataDir);
  if (!nearest.stat.isDirectory()) {
    refuse(
      nearest.path === dataDir
        ? `KURA_DATA_DIR (${dataDir}) is a file, not a directory: set KURA_DATA_DIR to a directory, or move the file away.`
        : `KURA_DATA_DIR (${dataDir}) cannot be created because ${nearest.path} is a file: set KURA_DATA_DIR to a directory Kura may create.`,
    );
  }
  if (!(await isWritable(nearest.path))) {
    refuse(
      nearest.path === dataDir
        ? `KURA_DATA_DIR (${dataDir}) is not writable by the user ${userInfo().username}: give that user write access to it, or set KURA_DATA_DIR to a directory it may write.`
        : `KURA_DATA_DIR (${dataDir}) cannot be created because ${nearest.path} is not writable by the user ${userInfo().username}: create it (mkdir -p ${dataDir}) or set KURA_DATA_DIR to a directory that user may write.`,
    );
  }
}

async function checkSystemDir(systemDir: string, account: PostgresAccount, blocked: string, what: string): Promise<void> {
  const nearest = await nearestExisting(systemDir);
  const problem = !nearest.stat.isDirectory()
    ? `${nearest.path} is not a directory`
    : !(await isWritable(nearest.path))
      ? `${nearest.path} is not writable`
      : !(await canEnter(account, nearest.path))
        ? `the postgres user cannot enter ${nearest.path}`
        : null;
  if (problem !== null) {
    refuse(
      `As root, Kura runs PostgreSQL as the postgres user, who cannot ${blocked}, and ${systemDir}, where Kura would keep ${what} instead, is no good (${problem}): set KURA_SYSTEM_DIR to a directory root may write and the postgres user may enter.`,
    );
  }
}

/** Copies PostgreSQL's programs where the postgres user can run them (once per version: later starts find the copy). */
async function copyProgramsTo(bundled: PostgresPrograms, systemDir: string, account: PostgresAccount): Promise<PostgresPrograms> {
  const copy = { root: path.join(systemDir, `postgresql-${bundled.version}`), version: bundled.version };
  if (await runsAs(account, postgresBinary(copy), ['--version'])) return copy;
  await makeDirs(systemDir);
  const staging = `${copy.root}.partial-${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  await cp(bundled.root, staging, { recursive: true, verbatimSymlinks: true });
  await chmod(staging, 0o755);
  await rm(copy.root, { recursive: true, force: true });
  // another Kura starting at the same moment may have put its copy there first: either will do
  await rename(staging, copy.root).catch(() => rm(staging, { recursive: true, force: true }));
  if (!(await runsAs(account, postgresBinary(copy), ['--version']))) {
    refuse(
      `PostgreSQL copied to ${copy.root} still cannot be run by the postgres user: set KURA_SYSTEM_DIR to a directory the postgres user may enter, on a filesystem not mounted noexec.`,
    );
  }
  return copy;
}

/** `mkdir -p` whose new directories are root's and 0755 whatever the umask, so the postgres user can pass through them. */
async function makeDirs(dir: string): Promise<void> {
  const first = await mkdir(dir, { recursive: true });
  if (first === undefined) return;
  for (let made = dir; made.length >= first.length; made = path.dirname(made)) await chmod(made, 0o755);
}

async function nearestExisting(target: string): Promise<{ path: string; stat: Stats }> {
  for (let at = target; ; at = path.dirname(at)) {
    const found = await stat(at).catch(() => null);
    if (found !== null || at === path.dirname(at)) return { path: at, stat: found as Stats };
  }
}

async function isWritable(dir: string): Promise<boolean> {
  return access(dir, constants.W_OK | constants.X_OK).then(
    () => true,
    () => false,
  );
}

function refuse(sentence: string): never {
  throw new ConfigError([sentence]);
}
