import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { createCaptureRepo } from '../../src/adapters/db/capture-repo.js';
import { createLivestreamRepo } from '../../src/adapters/db/livestream-repo.js';
import { createWatchLookRepo } from '../../src/adapters/db/watch-look-repo.js';
import { migrate } from '../../src/adapters/db/migrator.js';
import { createPool } from '../../src/adapters/db/pool.js';
import type { CaptureRepo } from '../../src/core/capture/ports.js';
import type { LivestreamRepo, WatchLooks } from '../../src/core/records/ports.js';
import { readPackageInfo } from '../../src/adapters/os/package-info.js';

export interface TestDatabase {
  url: string;
  pool: pg.Pool;
  livestreams: LivestreamRepo;
  watchLooks: WatchLooks;
  captures: CaptureRepo;
  drop(): Promise<void>;
}

/** A fresh, empty database on the run's PostgreSQL; `migrated: false` leaves the schema out. */
export async function createTestDatabase(options: { migrated?: boolean } = {}): Promise<TestDatabase> {
  const serverUrl = inject('postgresUrl');
  const name = `kura_test_${randomBytes(6).toString('hex')}`;
  await withClient(serverUrl, (client) => client.query(`create database ${name}`));
  const url = serverUrl.replace(/\/[^/]+$/, `/${name}`);
  const pool = createPool({ connectionString: url, max: 5 });
  if (options.migrated ?? true) await migrate(pool, readPackageInfo().migrationsDir);
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
