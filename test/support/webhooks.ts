import type { DeliveryResult } from '../../src/shared/worker-activity.js';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type pg from 'pg';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { listenForChannels } from '../../src/adapters/db/change-listener.js';
import type { JobFailureHooks, JobHandlers } from '../../src/jobs/catalogue.js';
import { LOOPS } from '../../src/jobs/loop-catalogue.js';
import { deliverWebhooksJob } from '../../src/jobs/definitions/deliver-webhooks.js';
import { startLoop, type Loop } from '../../src/jobs/runtime/loop.js';
import { startJobs } from '../../src/wiring/jobs.js';
import { createDeliverDeps } from '../../src/wiring/notifications.js';
import type { TestDatabase } from './database.js';
import { workJobs } from './jobs.js';

export const PUBLIC_URL = 'http://kura.test';
/** Retries within a second, so a test sees them. */
export const QUICK = { retryDelaysSeconds: [0.3, 0.6], giveUpAfterSeconds: 3600, disableAfterSeconds: 5 * 86400 };

export interface Received {
  id: string;
  type: string;
  data: Record<string, unknown>;
  status: number;
}

/** A local webhook receiver: verifies every delivery with the standardwebhooks package, answers `answers` in turn (then 200). */
export async function startReceiver(answers: number[] = []) {
  let secret = '';
  const received: Received[] = [];
  const refusedSignatures: string[] = [];
  const waiters: Array<() => void> = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        const payload = new Webhook(secret).verify(body, request.headers as Record<string, string>) as { type: string; data: Record<string, unknown> };
        const status = answers.shift() ?? 200;
        received.push({ id: request.headers['webhook-id'] as string, type: payload.type, data: payload.data, status });
        response.writeHead(status).end();
      } catch (error) {
        refusedSignatures.push((error as Error).message);
        response.writeHead(400).end();
      }
      waiters.splice(0).forEach((wake) => wake());
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    refusedSignatures,
    useSecret: (value: string) => (secret = value),
    async waitFor(count: number) {
      while (received.length + refusedSignatures.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const noop = async () => undefined;

/**
 * A worker of the real pg-boss that runs only the webhook deliveries, as `kura serve` wires them:
 * the `deliver-webhooks` job of the catalogue, and its loops (the wake-up at each event, the
 * pruning of history), on the production parts.
 */
export async function startWorker(db: Pick<TestDatabase, 'pool' | 'url'>, allowPrivateSources = true, publicUrl = PUBLIC_URL) {
  const jobs = await startJobs({ pool: db.pool, onError: () => undefined });
  const log = pino({ level: 'silent' });
  // how each attempt ended, as the worker's kura_webhook_deliveries_total counts them
  const attempts: DeliveryResult[] = [];
  const deliverDeps = {
    ...createDeliverDeps({ allowPrivateSources, publicUrl }, db.pool, QUICK),
    onAttempt: (result: DeliveryResult) => void attempts.push(result),
  };
  const work = { webhooks: { deps: deliverDeps, drains: jobs } };
  const drain = () => deliverWebhooksJob.handle(work, {}, { id: 'test' });
  const context = { ...work, jobs, log };
  const loops: Array<Loop<typeof context>> = [LOOPS['webhook-wake-up'], LOOPS['prune-webhook-history']];
  const feeds = await listenForChannels(
    db.url,
    () => undefined,
    loops.flatMap((loop) => (loop.wakeUp.channel === null ? [] : [loop.wakeUp.channel])),
  );
  const stopLoops = await Promise.all(loops.map((loop) => startLoop(loop, context, feeds, { backstopSeconds: 3600 })));
  const handlers: JobHandlers = {
    'watch-stream': noop,
    'capture-stream': noop,
    'capture-chat': noop,
    'finalize-archive': noop,
    'index-records': noop,
    'verify-archives': noop,
    'deliver-webhooks': drain,
    'apply-retention': noop,
  };
  const hooks: JobFailureHooks = {
    'watch-stream': noop,
    'capture-stream': noop,
    'capture-chat': noop,
    'finalize-archive': noop,
    'index-records': noop,
    'verify-archives': noop,
    'deliver-webhooks': noop,
    'apply-retention': noop,
  };
  const stopJobs = await workJobs(jobs, db.url, { handlers, hooks });
  return {
    jobs,
    drain,
    attempts,
    async stop() {
      for (const stop of stopLoops) await stop();
      await feeds.close();
      await stopJobs(2000);
    },
  };
}

/** Queues a record as a submission by local/alice does: the record and its submitter in one transaction. */
export function queueRecord(pool: pg.Pool, id: string, channelId = 'UCchannel'): Promise<void> {
  return queueSubmitted({ pool }, id, { channelId });
}

/** Queues a record as a submission does: the record and its submitter (`provider/userId`) in one transaction. */
export async function queueSubmitted(db: Pick<TestDatabase, 'pool'>, id: string, options: { channelId?: string; submitter?: string } = {}): Promise<void> {
  const [provider, userId] = (options.submitter ?? 'local/alice').split('/') as [string, string];
  const client = await db.pool.connect();
  try {
    await client.query('begin');
    await client.query(
      `insert into livestreams (id, platform, source_url, status, title, channel_name, channel_id, scheduled_start_at)
       values ($1, 'hls', $2, 'upcoming', 'A stream', 'A channel', $3, now())`,
      [id, `https://example.com/${id}.m3u8`, options.channelId ?? 'UCchannel'],
    );
    await client.query(`insert into livestream_submitters (livestream_id, provider, user_id) values ($1, $2, $3)`, [id, provider, userId]);
    await client.query('commit');
  } finally {
    client.release();
  }
}
