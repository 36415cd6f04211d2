import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createWebhookRepo } from '../../src/adapters/db/webhook-repo.js';
import { pruneWebhookHistory } from '../../src/core/notifications/prune-webhook-history.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startWorker } from '../support/webhooks.js';

let db: TestDatabase;
beforeEach(async () => {
  db = await createTestDatabase();
  await db.pool.query(
    `insert into webhooks (id, url, secret, created_by) values ('w1', 'https://hooks.example/a', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'local/root')`,
  );
});
afterEach(() => db.drop());

/** An event named `name` (its data), `daysAgo` old. */
async function event(name: string, daysAgo: number): Promise<string> {
  const { rows } = await db.pool.query<{ id: string }>(
    `insert into events (type, data, occurred_at) values ('webhook.test', jsonb_build_object('name', $1::text), now() - make_interval(days => $2)) returning id::text`,
    [name, daysAgo],
  );
  return rows[0]!.id;
}

/** A delivery of `eventId` to w1: delivered or given up `daysAgo` days ago, or still due (`pending`). */
const delivery = (eventId: string, state: 'delivered' | 'given_up' | 'pending', daysAgo: number) =>
  db.pool.query(
    `insert into webhook_deliveries (webhook_id, event_id, created_at, delivered_at, given_up_at)
     values ('w1', $1, now() - make_interval(days => $3), case when $2 = 'delivered' then now() - make_interval(days => $3) end,
             case when $2 = 'given_up' then now() - make_interval(days => $3) end)`,
    [eventId, state, daysAgo],
  );

const left = async () => ({
  events: (await db.pool.query(`select data->>'name' as name from events order by id`)).rows.map((r) => r.name as string),
  deliveries: (await db.pool.query(`select e.data->>'name' as name from webhook_deliveries d join events e on e.id = d.event_id order by d.id`)).rows.map(
    (r) => r.name as string,
  ),
});

describe('webhook history retention', () => {
  it('prunes deliveries delivered or given up over 30 days ago and events left without deliveries; keeps what is recent or still due', async () => {
    await delivery(await event('delivered-31d', 31), 'delivered', 31);
    await delivery(await event('given-up-32d', 33), 'given_up', 32);
    await delivery(await event('delivered-29d', 29), 'delivered', 29);
    // still retried (its webhook disabled, say): kept however old
    await delivery(await event('pending-40d', 40), 'pending', 40);
    await event('unmatched-now', 0);
    await db.pool.query(
      `insert into webhooks (id, url, secret, created_by) values ('w2', 'https://hooks.example/b', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'local/root')`,
    );
    const shared = await event('shared-31d', 31);
    await delivery(shared, 'delivered', 31);
    await db.pool.query(`insert into webhook_deliveries (webhook_id, event_id, delivered_at) values ('w2', $1, now() - interval '2 days')`, [shared]);

    const pruned = await pruneWebhookHistory({ webhooks: createWebhookRepo(db.pool) }, new Date());
    expect(await left()).toEqual({
      events: ['delivered-29d', 'pending-40d', 'shared-31d'],
      deliveries: ['delivered-29d', 'pending-40d', 'shared-31d'],
    });
    // the shared event's old delivery went; w2's recent one keeps the event
    expect((await db.pool.query(`select webhook_id from webhook_deliveries where event_id = $1`, [shared])).rows).toEqual([{ webhook_id: 'w2' }]);
    expect(pruned).toBe(3 + 3);
    expect(await pruneWebhookHistory({ webhooks: createWebhookRepo(db.pool) }, new Date())).toBe(0);
  });

  it('is done by a worker as soon as it starts', async () => {
    await delivery(await event('delivered-45d', 45), 'delivered', 45);
    await event('unmatched', 0);
    const worker = await startWorker(db);
    try {
      await vi.waitFor(async () => expect(await left()).toEqual({ events: [], deliveries: [] }));
    } finally {
      await worker.stop();
    }
  });
});
