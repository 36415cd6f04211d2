// Decisions: docs/decisions/0105-test-databases-are-copies.md
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { createCaptureRepo } from '../../src/adapters/db/capture-repo.js';
import { createLivestreamRepo } from '../../src/adapters/db/livestream-repo.js';
import { createWatchLookRepo } from '../../src/adapters/db/watch-look-repo.js';
import { createPool } from '../../src/adapters/db/pool.js';
import type { CaptureRepo } from '../../src/core/capture/ports.js';
import type { LivestreamRepo, WatchLooks } from '../../src/core/records/ports.js';

export interface TestDatabase {
  url: string;
  pool: pg.Pool;
  livestreams: LivestreamRepo;
  watchLooks: WatchLooks;
  captures: CaptureRepo;
  drop(): Promise<void>;
}

/**
 * A fresh database on the run's PostgreSQL, migrated and with the job queue's tables and queues in
 * place as a first start leaves them; `jobQueue: false` leaves the job queue out (a first start is
 * the test's subject), `migrated: false` leaves the schema out too.
 */
export async function createTestDatabase(options: { migrated?: boolean; jobQueue?: boolean } = {}): Promise<TestDatabase> {
  const serverUrl = inject('postgresUrl');
  const name = `kura_test_${randomBytes(6).toString('hex')}`;
  // a copy of one of the run's templates (global-setup.ts), which the migrations and pg-boss made once
  const { migrated = true, jobQueue = true } = options;
  const templates = inject('templates');
  const template = migrated ? ` template ${jobQueue ? templates.withJobQueue : templates.migrated}` : '';
  await withClient(serverUrl, (client) => client.query(`create database ${name}${template}`));
  const url = serverUrl.replace(/\/[^/]+$/, `/${name}`);
  const pool = createPool({ connectionString: url, max: 5 });
  return {
    url,
    pool,
    livestreams: createLivestreamRepo(pool),
    watchLooks: createWatchLookRepo(pool),
    captures: createCaptureRepo(pool),
    async drop() {
      await pool.end();
      await withClient(serverUrl, (client) => client.query(`drop database ${name} with (force)`));
    },
  };
}

async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/**
 * A login role of its own that owns `db`, allowed `connections` at once: what a scaled-out
 * instance's processes connect as when their budget is the subject. Not a superuser, as PostgreSQL
 * counts only other roles' connections against a limit; Kura migrates the (empty) database as it.
 * Resolves with its URL and its removal, once the database is dropped.
 */
export async function limitedOwner(db: TestDatabase, connections: number): Promise<{ url: string; drop(): Promise<void> }> {
  const serverUrl = inject('postgresUrl');
  const name = `kura_role_${randomBytes(6).toString('hex')}`;
  const password = randomBytes(12).toString('hex');
  const database = new URL(db.url).pathname.slice(1);
  await withClient(serverUrl, async (client) => {
    await client.query(`create role ${name} login password '${password}' connection limit ${connections}`);
    await client.query(`alter database ${database} owner to ${name}`);
  });
  const url = new URL(db.url);
  url.username = name;
  url.password = password;
  return { url: url.href, drop: () => withClient(serverUrl, (client) => client.query(`drop role ${name}`)).then(() => undefined) };
}
