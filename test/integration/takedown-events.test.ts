import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminActionRepo } from '../../src/adapters/db/admin-action-repo.js';
import { objectKeys } from '../../src/core/archive/object-keys.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

// The events a record makes while an admin takes it down during its finalize (issue 49): the rows
// and the triggers that write its events are PostgreSQL's own.
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

/** A live YouTube record of its own. */
async function live(id: string): Promise<void> {
  await db.livestreams.upsertMany([
    {
      id,
      platform: 'youtube',
      sourceUrl: `https://www.youtube.com/watch?v=${id}`,
      status: 'live',
      failureReason: null,
      title: `Stream ${id}`,
      channelName: 'Channel',
      channelId: 'UCchannel',
      thumbnailUrl: null,
      scheduledStart: new Date(),
      startedAt: new Date(),
      endedAt: null,
      archive: null,
      submitters: ['local/viewer'],
      requestedQuality: null,
    },
  ]);
}
const archived = (id: string) => ({
  type: 'archived' as const,
  endedAt: new Date(),
  archive: { fileSizeBytes: 10, lengthSeconds: 1, videoKey: objectKeys.video(id), logKey: objectKeys.log(id), thumbnailKey: null, sha256: 'a'.repeat(64) },
});
const events = async (id: string) => (await db.pool.query(`select type from events where livestream_id = $1 order by id`, [id])).rows.map((r) => r.type);

describe('a record taken down while its archive is made', () => {
  it('announces no archive once the takedown was asked: its removal is the next and last event', async () => {
    await live('kTakenDown1');
    await createAdminActionRepo(db.pool).requestTakeDown('kTakenDown1', 'local/root', 'not ours to keep');
    await db.livestreams.transition('kTakenDown1', archived('kTakenDown1')); // the finalize that was under way
    await db.pool.query(`delete from livestreams where id = $1`, ['kTakenDown1']); // the takedown completes
    expect(await events('kTakenDown1')).toEqual(['livestream.queued', 'livestream.removed']);
  });

  it('announces the archive of a record nobody takes down', async () => {
    await live('kArchived01');
    await db.livestreams.transition('kArchived01', archived('kArchived01'));
    expect(await events('kArchived01')).toEqual(['livestream.queued', 'livestream.finished']);
  });
});
