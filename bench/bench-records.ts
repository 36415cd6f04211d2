import { importLivestreams } from '../src/core/records/import-livestreams.js';
import type { RunningKura } from '../src/main.js';
import { buildRecords } from '../test/support/factories.js';

/**
 * Imports the bench's records (test/support/factories.ts, 1 in 10 upcoming) until the database
 * holds `count`, 100,000 at a time: a kept data directory imports only what it lacks. Resolves
 * with the seconds it took.
 */
export async function importUpTo(database: RunningKura['database'], count: number): Promise<number> {
  const started = Date.now();
  const { rows } = await database.pool.query<{ n: number }>('select count(*)::integer as n from livestreams');
  for (let offset = rows[0]?.n ?? 0; offset < count; offset += 100_000) {
    await importLivestreams(database, buildRecords(Math.min(100_000, count - offset), { offset, unfinishedEvery: 10 }));
  }
  return (Date.now() - started) / 1000;
}
