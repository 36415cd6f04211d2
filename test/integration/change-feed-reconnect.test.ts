import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { buildRecords } from '../support/factories.js';

// The read cache follows the change feed (LISTEN on its own connection). Here the feed's backend
// is terminated by PostgreSQL, as an operator's pg_terminate_backend or a failover does, and
// kept from reconnecting for as long as the test needs: the feed logs in as a role of its own,
// which the test forbids to log in while the feed is to stay down. The app's pool is untouched.
const ROLE = `kura_feed_${randomBytes(4).toString('hex')}`;
const PASSWORD = 'feed-password';
let kura: TestApp;

/** Runs `sql` on the server as its superuser (roles are the cluster's, not one database's). */
async function asSuperuser(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: inject('postgresUrl') });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  await asSuperuser(`create role ${ROLE} login password '${PASSWORD}'`);
  kura = await startTestApp({}, {}, { feedUrl: (db) => Object.assign(new URL(db.url), { username: ROLE, password: PASSWORD }).toString() });
  await kura.load(buildRecords(3));
});
afterAll(async () => {
  await kura.close();
  await asSuperuser(`drop role ${ROLE}`);
});

/** The newest record's title as `/api/history` answers it now. */
const newestTitle = async () => (await kura.app.inject({ url: '/api/history' })).json()[0].title as string;
const NEWEST = 'rec00000002';

/** Renames the newest record on another connection, as another process would; `notify: false` keeps the triggers (and so the notification) out of it. */
async function renameElsewhere(title: string, options: { notify: boolean }): Promise<void> {
  const client = await kura.db.pool.connect();
  try {
    await client.query('begin');
    if (!options.notify) await client.query(`set local session_replication_role = replica`);
    await client.query(`update livestreams set title = $1 where id = $2`, [title, NEWEST]);
    await client.query('commit');
  } finally {
    client.release();
  }
}

describe('the change feed losing its connection', () => {
  it('bypasses the read cache while down, so a change made meanwhile is served fresh; uses it again once reconnected', async () => {
    expect(await newestTitle()).toBe('Karaoke night 2');
    expect(kura.feed.connected).toBe(true);

    // down: the feed's backend is terminated and its role may not log in again for now
    await asSuperuser(`alter role ${ROLE} nologin`);
    const lost = kura.nextChange(); // the feed says "something may have changed" when it loses the connection
    await kura.db.pool.query(`select pg_terminate_backend(pid) from pg_stat_activity where usename = $1 and query ilike 'listen%'`, [ROLE]);
    await lost;
    expect(kura.feed.connected).toBe(false);

    // while down, a change committed elsewhere reaches nobody: reads must not come from the cache
    expect(await newestTitle()).toBe('Karaoke night 2');
    await renameElsewhere('Renamed while the feed was down', { notify: true });
    expect(await newestTitle()).toBe('Renamed while the feed was down');
    await renameElsewhere('Renamed again while down', { notify: true });
    expect(await newestTitle()).toBe('Renamed again while down');
    expect(kura.feed.connected).toBe(false); // it was down throughout: the answers above did not come through the feed

    // up: the feed reconnects by itself and says so (the cache starts empty)
    const back = kura.nextChange();
    await asSuperuser(`alter role ${ROLE} login`);
    await back;
    expect(kura.feed.connected).toBe(true);

    // the cache is used again: a write that notifies nobody is not seen until a notified one
    expect(await newestTitle()).toBe('Renamed again while down');
    await renameElsewhere('Renamed without a notification', { notify: false });
    expect(await newestTitle()).toBe('Renamed again while down'); // served from the cache
    const changed = kura.nextChange();
    await renameElsewhere('Renamed with a notification', { notify: true });
    await changed;
    expect(await newestTitle()).toBe('Renamed with a notification');
  });
});
