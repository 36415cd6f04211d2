import type pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCaptureRepo } from '../../src/adapters/db/capture-repo.js';
import type { CaptureRepo } from '../../src/core/capture/ports.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

// The progress many captures in one process write as they record, on a real PostgreSQL.
let db: TestDatabase;
let captures: CaptureRepo;
/** Statements the repository sent. */
let statements: number;

beforeEach(async () => {
  db = await createTestDatabase();
  statements = 0;
  const counted = Object.create(db.pool) as pg.Pool;
  counted.query = ((...args: Parameters<pg.Pool['query']>) => {
    statements += 1;
    return (db.pool.query as (...a: unknown[]) => unknown)(...args);
  }) as pg.Pool['query'];
  captures = createCaptureRepo(counted);
});
afterEach(() => db.drop());

async function startCaptures(count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, (_, i) => `cap-${i}`);
  for (const id of ids) {
    await db.pool.query(`insert into livestreams (id, platform, source_url, status, scheduled_start_at) values ($1, 'hls', $2, 'live', now())`, [
      id,
      `https://example.com/${id}.m3u8`,
    ]);
    await captures.claim(id, 'worker-1', 30);
  }
  statements = 0;
  return ids;
}

const segment = (sequence: number) => ({ sequence, part: 1, endOffset: (sequence + 1) * 1000, durationSeconds: 1 });

describe('recording the segments of many captures', () => {
  it('writes the segments that arrive together in one statement, each capture with its log lines and next sequence', async () => {
    const ids = await startCaptures(20);
    await Promise.all(ids.map((id) => captures.recordSegment(id, segment(0), [`${id} segment 0`])));
    expect(statements).toBe(1);
    await Promise.all(ids.map((id) => captures.recordSegment(id, segment(1), [`${id} segment 1`, `${id} segment 1, second line`])));
    expect(statements).toBe(2);

    for (const id of ids) {
      expect(await captures.parts(id)).toEqual([{ part: 1, bytes: 2000, segments: 2, seconds: 2 }]);
      expect((await captures.get(id))?.nextSequence).toBe(2);
      const log = (await captures.readLog(id)).split('\n').map((line) => line.replace(/^\S+ /, ''));
      expect(log).toEqual([`${id} segment 0`, `${id} segment 1`, `${id} segment 1, second line`, '']);
    }
  });

  it('fails only the capture whose segment PostgreSQL refuses, not the others written with it', async () => {
    const [a, b, c] = (await startCaptures(3)) as [string, string, string];
    await captures.forget(b); // its capture row is gone: its segment breaks a foreign key
    const results = await Promise.allSettled([a, b, c].map((id) => captures.recordSegment(id, segment(0), ['stored'])));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/foreign key/);
    expect((await captures.parts(a))[0]?.segments).toBe(1);
    expect((await captures.parts(c))[0]?.segments).toBe(1);
  });

  it('renews the leases of many captures in one statement, telling held, lost and stopped apart', async () => {
    const ids = await startCaptures(4);
    await db.pool.query(`update captures set worker_id = 'worker-2' where livestream_id = $1`, [ids[1]]); // another worker took it over
    await captures.requestStop(ids[2] as string, 'an admin stopped it');
    statements = 0;
    const leases = await Promise.all(ids.map((id) => captures.heartbeat(id, 'worker-1')));
    expect(statements).toBe(1);
    expect(leases).toEqual(['held', 'lost', 'stop', 'held']);
  });
});
