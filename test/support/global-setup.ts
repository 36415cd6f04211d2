// Decisions: docs/decisions/0105-test-databases-are-copies.md
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { migrateToThisRelease } from '../../src/wiring/release.js';
import { createPool } from '../../src/adapters/db/pool.js';
import { startEmbeddedPostgres } from '../../src/adapters/embedded-postgres/embedded-postgres.js';
import { startJobsWithoutWorkers } from './jobs.js';

/**
 * The databases test databases are copies of: copying one costs a fraction of migrating a database
 * and setting pg-boss up on it (bench/RESULTS.md, decision 0104).
 */
const TEMPLATES = { migrated: 'kura_test_migrated', withJobQueue: 'kura_test_with_job_queue' };

declare module 'vitest' {
  export interface ProvidedContext {
    /** A real PostgreSQL (embedded-postgres) for the whole run; each test file makes its own database on it. */
    postgresUrl: string;
    /** Databases on it that test databases are copies of (database.ts): migrated, and migrated with the job queue set up. */
    templates: { migrated: string; withJobQueue: string };
  }
}

/**
 * One real PostgreSQL server for the run, started from embedded-postgres; and one temp folder for
 * the run that every test's temp files go in (TMPDIR, inherited by the test workers), removed at
 * the end whatever the tests left in it.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'kura-test-run-'));
  await chmod(root, 0o755); // as root, PostgreSQL runs as the postgres user and must reach its directories
  process.env.TMPDIR = root;
  const server = await startEmbeddedPostgres({ dir: path.join(root, 'postgres'), log: () => undefined });
  project.provide('postgresUrl', server.connectionString);
  await makeTemplates(server.connectionString);
  project.provide('templates', TEMPLATES);
  return async () => {
    await server.stop();
    await rm(root, { recursive: true, force: true });
  };
}

/**
 * Makes TEMPLATES with this tree's migrations and job queues; their connections are closed, as a
 * template must have none when it is copied.
 */
async function makeTemplates(serverUrl: string): Promise<void> {
  const urlOf = (name: string) => serverUrl.replace(/\/[^/]+$/, `/${name}`);
  const admin = createPool({ connectionString: serverUrl, max: 1 });
  await admin.query(`create database ${TEMPLATES.migrated}`);
  const migrated = createPool({ connectionString: urlOf(TEMPLATES.migrated), max: 1 });
  await migrateToThisRelease(migrated);
  await migrated.end();
  await admin.query(`create database ${TEMPLATES.withJobQueue} template ${TEMPLATES.migrated}`);
  await admin.end();
  const withJobQueue = createPool({ connectionString: urlOf(TEMPLATES.withJobQueue), max: 3 });
  await (await startJobsWithoutWorkers(withJobQueue)).stop(0);
  await withJobQueue.end();
}
