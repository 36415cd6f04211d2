// Decisions: docs/decisions/0118-releases-and-upgrades.md
import type pg from 'pg';
import { migrate, migrationNames, type MigrationResult } from '../adapters/db/migrator.js';
import { readPackageInfo } from '../adapters/os/package-info.js';

/** Why the schema could not be brought up to date (exit 2): re-exported for the commands, which reach adapters through wiring. */
export { MigrationError } from '../adapters/db/migrator.js';

/** The release that runs and the commit it was built from ("unknown" outside a git checkout). */
export function release(): { version: string; commit: string } {
  const { version, commit } = readPackageInfo();
  return { version, commit: /^[0-9a-f]{40}$/.test(commit) ? commit.slice(0, 7) : commit };
}

/** `kura 0.8.0 (commit 1a2b3c4)`. */
export function versionLine(): string {
  const { version, commit } = release();
  return `kura ${version} (commit ${commit})`;
}

/**
 * Brings `pool`'s schema up to this release's migrations, each recorded as applied by this release;
 * with `upTo`, only as far as that migration (a restore's first step, decision 0121).
 */
export function migrateToThisRelease(pool: pg.Pool, upTo?: string): Promise<MigrationResult> {
  const { migrationsDir, version } = readPackageInfo();
  return migrate(pool, migrationsDir, version, upTo);
}

/** This release's migrations, oldest first. */
export function thisReleaseMigrations(): Promise<string[]> {
  return migrationNames(readPackageInfo().migrationsDir);
}
