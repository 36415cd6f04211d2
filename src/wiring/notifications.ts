import type { Logger } from 'pino';
import type pg from 'pg';
import { listenForChanges } from '../adapters/db/change-listener.js';
import { createWebhookRepo } from '../adapters/db/webhook-repo.js';
import { isDiscordWebhookUrl } from '../adapters/notifications/discord-url.js';
import { webhookBodies } from '../adapters/notifications/webhook-body.js';
import { createWebhookSender } from '../adapters/notifications/webhook-sender.js';
import { createOutboundClient, type OutboundOptions } from '../adapters/outbound/outbound-client.js';
import type { Config } from '../config.js';
import type { WebhookRepo, WebhookSender } from '../core/notifications/ports.js';
import { deliverWebhooks } from '../core/notifications/deliver-webhooks.js';
import { targetChecks, type TargetChecks } from './sources.js';
import { pruneWebhookHistory } from '../core/notifications/prune-webhook-history.js';
import type { DeliveryPolicy } from '../core/notifications/webhook.js';
import type { PgBossJobs } from '../jobs/pg-boss-jobs.js';
import { startPurgingExpired } from '../jobs/purge-expired.js';

/** The channel migration 0015's outbox trigger notifies on each new event. */
const EVENTS_CHANNEL = 'kura_webhook_events';

/** What the webhook routes and commands work on: a target URL is judged as a followed endpoint's is (and again at each delivery). */
export interface WebhookDeps extends TargetChecks {
  webhooks: WebhookRepo;
  /** Whether a URL is sent Discord messages rather than Standard Webhooks events. */
  isDiscord: (url: string) => boolean;
}

/** The webhook routes' and commands' parts; `resolve` is the DNS the creation-time check asks (default: the system resolver). */
export function createWebhookDeps(config: Pick<Config, 'allowPrivateSources'>, pool: pg.Pool, resolve?: OutboundOptions['resolve']): WebhookDeps {
  return {
    webhooks: createWebhookRepo(pool),
    ...targetChecks(config, resolve),
    isDiscord: isDiscordWebhookUrl,
  };
}

/** Sends each event through the SSRF-guarded client, its body as webhook-body.ts makes it. */
export function createSender(config: Pick<Config, 'allowPrivateSources' | 'publicUrl'>): WebhookSender {
  return createWebhookSender({ outbound: createOutboundClient({ allowPrivate: config.allowPrivateSources }), bodyFor: webhookBodies(config.publicUrl) });
}

/**
 * A worker's part in delivering webhooks: the `deliver-webhooks` job's work (send what is due, then
 * ask for the next drain when the next delivery is due), and a wake-up on each new event (and once
 * at start, for events committed while no worker ran), and the hourly pruning of webhook history.
 * The returned functions: the job's work, stop.
 */
export async function startWebhookDelivery(
  config: Pick<Config, 'allowPrivateSources' | 'publicUrl'>,
  parts: { pool: pg.Pool; connectionString: string; jobs: PgBossJobs },
  log: Logger,
  policy?: DeliveryPolicy,
): Promise<{ drain: () => Promise<void>; stop: () => Promise<void> }> {
  const deps = { webhooks: createWebhookRepo(parts.pool), sender: createSender(config), ...(policy ? { policy } : {}) };
  const wake = () => void parts.jobs.deliverWebhooks().catch((error: Error) => log.warn({ err: error }, 'could not queue webhook deliveries'));
  const feed = await listenForChanges(parts.connectionString, (m) => log.warn(m), EVENTS_CHANNEL);
  feed.onChange(wake);
  wake();
  // hourly with the purge of expired sessions (each worker; the deletes are idempotent)
  const stopPruning = startPurgingExpired(
    { purgeExpired: () => pruneWebhookHistory(deps, new Date()) },
    { everySeconds: 3600, onError: (error) => log.warn({ err: error }, 'pruning webhook history failed') },
  );
  return {
    async drain() {
      const next = await deliverWebhooks(deps);
      if (next !== null) await parts.jobs.deliverWebhooks(next);
    },
    async stop() {
      stopPruning();
      await feed.close();
    },
  };
}
