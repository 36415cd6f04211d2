import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import pg from 'pg';
import pino from 'pino';
import { createWebhookRepo } from '../../src/adapters/db/webhook-repo.js';
import { addWebhook } from '../../src/core/notifications/add-webhook.js';
import { deliverWebhooksJob } from '../../src/jobs/definitions/deliver-webhooks.js';
import { WEBHOOK_EVENTS_CHANNEL } from '../../src/jobs/runtime/notify-channels.js';
import { presentRecord } from '../../src/http/livestreams/record.presenter.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { createDeliverDeps } from '../../src/wiring/notifications.js';
import { PUBLIC_URL, QUICK, queueRecord as queueIn, startReceiver, startWorker } from '../support/webhooks.js';

let db: TestDatabase;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let worker: Awaited<ReturnType<typeof startWorker>> | null;
beforeEach(async () => {
  db = await createTestDatabase();
  worker = null;
});
afterEach(async () => {
  await worker?.stop();
  await receiver?.close();
  await db.drop();
});

async function subscribe(options: { events?: string[]; channelId?: string } = {}) {
  const { webhook, secret } = await addWebhook(
    { webhooks: createWebhookRepo(db.pool), refuseUrl: () => null, checkAddresses: async () => null },
    { url: receiver.url, ...options, createdBy: 'local/root' },
  );
  receiver.useSecret(secret);
  return webhook;
}

const queueRecord = (id: string, channelId?: string) => queueIn(db.pool, id, channelId);
const deliveriesOf = async (webhookId: string) => (await createWebhookRepo(db.pool).deliveries(webhookId, 50)).reverse();

describe('webhook delivery', () => {
  it('wakes the webhook workers only for an event that made a delivery: an instance without webhooks sends no drain', async () => {
    receiver = await startReceiver();
    const listener = new pg.Client({ connectionString: db.url });
    await listener.connect();
    try {
      const heard: string[] = [];
      listener.on('notification', (n) => heard.push(n.channel));
      await listener.query(`listen ${WEBHOOK_EVENTS_CHANNEL}`);
      await queueRecord('unheard'); // no webhook yet: its event is kept (the feeds read it), no one is woken
      await subscribe();
      await queueRecord('heard');
      // notifications arrive in commit order: had the first event notified, two would be heard
      await vi.waitFor(() => expect(heard).toEqual([WEBHOOK_EVENTS_CHANNEL]));
      await listener.query('select 1'); // a round trip after the second event's notification: nothing more came
      expect(heard).toEqual([WEBHOOK_EVENTS_CHANNEL]);
      const { rows } = await db.pool.query(`select livestream_id from events order by id`);
      expect(rows.map((r) => r.livestream_id)).toEqual(['unheard', 'heard']);
    } finally {
      await listener.end();
    }
  });

  it("delivers a record's queued, live and finished in order, each signed, with data as /api/history shows the record", async () => {
    receiver = await startReceiver();
    await subscribe();
    worker = await startWorker(db);
    await queueRecord('rec1');
    await db.livestreams.transition('rec1', { type: 'went_live', at: new Date() });
    const archive = {
      fileSizeBytes: 12345,
      lengthSeconds: 61,
      videoKey: 'videos/rec1.mp4',
      logKey: 'logs/rec1.log',
      thumbnailKey: null,
      sha256: 'a'.repeat(64),
    };
    await db.livestreams.transition('rec1', { type: 'archived', endedAt: new Date(), archive });
    await receiver.waitFor(3);
    expect(receiver.refusedSignatures).toEqual([]);
    expect(receiver.received.map((r) => r.type)).toEqual(['livestream.queued', 'livestream.live', 'livestream.finished']);
    expect(receiver.received[0]?.data).toMatchObject({ id: 'rec1', status: 'upcoming', submitters: ['local/alice'] });
    const finished = receiver.received[2]?.data;
    expect(finished).toEqual(JSON.parse(JSON.stringify(presentRecord((await db.livestreams.findById('rec1'))!, PUBLIC_URL, 'admin'))));
    expect(finished).toMatchObject({ downloadUrl: `${PUBLIC_URL}/api/download/rec1/video`, fileSizeBytes: 12345, length: 61 });
  });

  it('retries an event answered 500 twice with the same webhook-id, then never sends it again once delivered', async () => {
    receiver = await startReceiver([500, 500]);
    const webhook = await subscribe({ events: ['livestream.queued'] });
    worker = await startWorker(db);
    await queueRecord('rec2');
    await receiver.waitFor(3);
    const ids = receiver.received.map((r) => r.id);
    expect(receiver.received.map((r) => r.status)).toEqual([500, 500, 200]);
    expect(new Set(ids).size).toBe(1);
    // the receiver answered before the worker wrote the answer down
    const delivery = await vi.waitFor(async () => {
      const [found] = await deliveriesOf(webhook.id);
      expect(found?.deliveredAt).toBeInstanceOf(Date);
      return found;
    });
    expect(delivery).toMatchObject({ eventId: ids[0], attempts: 3, lastStatusCode: 200, nextAttemptAt: null });
    expect(worker.attempts).toEqual(['failed', 'failed', 'delivered']);
    await worker.drain(); // another drain finds nothing to send
    expect(receiver.received).toHaveLength(3);
  });

  it('holds a later event of a record back while an earlier one is retried, then sends both in order', async () => {
    receiver = await startReceiver([503]);
    await subscribe();
    worker = await startWorker(db);
    await queueRecord('rec3');
    await db.livestreams.transition('rec3', { type: 'went_live', at: new Date() });
    await receiver.waitFor(3);
    expect(receiver.received.map((r) => [r.type, r.status])).toEqual([
      ['livestream.queued', 503],
      ['livestream.queued', 200],
      ['livestream.live', 200],
    ]);
  });

  it('delivers an event committed while no worker ran once a worker starts (a crash between change and delivery)', async () => {
    receiver = await startReceiver();
    await subscribe();
    await queueRecord('rec4');
    await db.pool.query(`delete from livestreams where id = 'rec4'`);
    worker = await startWorker(db);
    await receiver.waitFor(2);
    expect(receiver.received.map((r) => r.type)).toEqual(['livestream.queued', 'livestream.removed']);
    expect(receiver.received[1]?.data).toMatchObject({ id: 'rec4', submitters: ['local/alice'] });
  });

  it('sends only the types and the channel a webhook asked for', async () => {
    receiver = await startReceiver();
    const webhook = await subscribe({ events: ['livestream.live'], channelId: 'UCwanted' });
    worker = await startWorker(db);
    await queueRecord('other', 'UCother');
    await db.livestreams.transition('other', { type: 'went_live', at: new Date() });
    await queueRecord('wanted', 'UCwanted');
    await db.livestreams.transition('wanted', { type: 'went_live', at: new Date() });
    await receiver.waitFor(1);
    expect(receiver.received.map((r) => [r.type, r.data.id])).toEqual([['livestream.live', 'wanted']]);
    expect((await deliveriesOf(webhook.id)).map((d) => d.livestreamId)).toEqual(['wanted']);
  });

  it('refuses a private target at delivery time without KURA_ALLOW_PRIVATE_SOURCES, and says why on the delivery', async () => {
    receiver = await startReceiver();
    const webhook = await subscribe();
    const repo = createWebhookRepo(db.pool);
    worker = await startWorker(db, false);
    await queueRecord('rec5');
    let [delivery] = await deliveriesOf(webhook.id);
    while (delivery?.attempts === 0) {
      await worker.drain();
      [delivery] = await deliveriesOf(webhook.id);
    }
    expect(delivery).toMatchObject({ lastStatusCode: null, lastError: expect.stringContaining('refused') });
    expect(receiver.received).toHaveLength(0);
    expect((await repo.get(webhook.id))?.failingSince).toBeInstanceOf(Date);
  });
  it('disables a webhook whose deliveries failed for five days, with one warning that names it and hides its URL’s token', async () => {
    receiver = await startReceiver([500]);
    const { webhook, secret } = await addWebhook(
      { webhooks: createWebhookRepo(db.pool), refuseUrl: () => null, checkAddresses: async () => null },
      { url: `${receiver.url}?token=hook-token-7f3a`, createdBy: 'local/root' },
    );
    receiver.useSecret(secret);
    await queueRecord('rec1');
    await db.pool.query(`update webhooks set failing_since = now() - interval '6 days' where id = $1`, [webhook.id]);
    const lines: string[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const work = {
      webhooks: {
        deps: createDeliverDeps({ allowPrivateSources: true, publicUrl: PUBLIC_URL }, db.pool, QUICK),
        drains: { deliverWebhooks: async () => undefined },
      },
      log,
    };

    await deliverWebhooksJob.handle(work, {}, { id: 'test' });

    const [row] = (await db.pool.query('select disabled_at, disabled_reason from webhooks where id = $1', [webhook.id])).rows;
    expect(row).toMatchObject({ disabled_at: expect.any(Date), disabled_reason: 'Every delivery failed for 5 days (last: HTTP 500).' });
    const warnings = lines.map((line) => JSON.parse(line) as { level: number; msg: string }).filter((line) => line.level === 40);
    expect(warnings.map((line) => line.msg)).toEqual([
      `webhook disabled: ${webhook.id} ${receiver.url}?token=***: Every delivery failed for 5 days (last: HTTP 500).`,
    ]);
    expect(lines.join('\n')).not.toContain('hook-token-7f3a');
  });
});
