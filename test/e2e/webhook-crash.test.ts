import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createWebhookRepo } from '../../src/adapters/db/webhook-repo.js';
import { addWebhook } from '../../src/core/notifications/add-webhook.js';
import { spawnKura, type KuraProcess } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { e2eEnv } from '../support/serve-env.js';
import { queueRecord, startReceiver } from '../support/webhooks.js';

let db: TestDatabase;
let cwd: string;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const processes: KuraProcess[] = [];

beforeEach(async () => {
  db = await createTestDatabase();
  cwd = await mkdtemp(path.join(os.tmpdir(), 'kura-webhook-crash-'));
  receiver = await startReceiver();
});
afterEach(async () => {
  for (const kura of processes.splice(0)) {
    kura.child.kill('SIGKILL');
    await kura.exited;
  }
  await receiver.close();
  await db.drop();
});

async function serve(role: 'all' | 'api' | 'worker'): Promise<KuraProcess> {
  const kura = spawnKura(['serve'], e2eEnv(db.url, path.join(cwd, 'data'), { KURA_ROLE: role }), cwd);
  processes.push(kura);
  await kura.waitForLog((line) => line.msg === (role === 'api' ? 'kura api listening' : 'kura worker ready'));
  return kura;
}

async function killHard(kura: KuraProcess) {
  kura.child.kill('SIGKILL');
  const { signal } = await kura.exited;
  expect(signal).toBe('SIGKILL');
  processes.splice(processes.indexOf(kura), 1);
}

const deliveries = async () =>
  (
    await db.pool.query<{ type: string; attempts: number; delivered: boolean }>(
      `select e.type, d.attempts, d.delivered_at is not null as delivered from webhook_deliveries d join events e on e.id = d.event_id order by d.event_id`,
    )
  ).rows;

describe('webhooks across a crash', () => {
  it('delivers what was committed before kill -9 exactly once, signed and in order, when a worker starts again', async () => {
    const { secret } = await addWebhook(
      { webhooks: createWebhookRepo(db.pool), refuseUrl: () => null, checkAddresses: async () => null },
      { url: receiver.url, createdBy: 'local/root' },
    );
    receiver.useSecret(secret);

    // a running instance delivers as changes commit
    const first = await serve('all');
    await queueRecord(db.pool, 'crash1');
    await receiver.waitFor(1);
    await vi.waitFor(async () => expect((await deliveries())[0]?.delivered).toBe(true));
    await killHard(first);

    // the workers are down (only an api process runs): changes commit with their events, nobody sends them
    const api = await serve('api');
    await db.livestreams.transition('crash1', { type: 'went_live', at: new Date() });
    await db.livestreams.transition('crash1', { type: 'gave_up', reason: 'the encoder crashed' });
    await queueRecord(db.pool, 'crash2');
    expect((await deliveries()).map((d) => [d.type, d.attempts])).toEqual([
      ['livestream.queued', 1],
      ['livestream.live', 0],
      ['livestream.failed', 0],
      ['livestream.queued', 0],
    ]);
    await killHard(api);
    expect(receiver.received).toHaveLength(1);

    // a worker starts: each event once, in order per record, each verified by its signature
    await serve('worker');
    await receiver.waitFor(4);
    await vi.waitFor(async () => expect((await deliveries()).every((d) => d.delivered)).toBe(true));
    expect(receiver.refusedSignatures).toEqual([]);
    const got = receiver.received.map((r) => [r.type, r.data.id]);
    expect(got).toHaveLength(4);
    expect(got.filter(([, id]) => id === 'crash1')).toEqual([
      ['livestream.queued', 'crash1'],
      ['livestream.live', 'crash1'],
      ['livestream.failed', 'crash1'],
    ]);
    expect(got).toContainEqual(['livestream.queued', 'crash2']);
    expect(new Set(receiver.received.map((r) => r.id)).size).toBe(4);
    expect((await deliveries()).map((d) => d.attempts)).toEqual([1, 1, 1, 1]);
  });
});
