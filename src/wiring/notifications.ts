// Decisions: docs/decisions/0060-discord-webhooks.md
import type pg from 'pg';
import { createWebhookRepo } from '../adapters/db/webhook-repo.js';
import { isDiscordWebhookUrl } from '../adapters/notifications/discord-url.js';
import { webhookBodies } from '../adapters/notifications/webhook-body.js';
import { createWebhookSender } from '../adapters/notifications/webhook-sender.js';
import { createOutboundClient, type OutboundOptions } from '../adapters/outbound/outbound-client.js';
import type { Config } from '../config/config.js';
import type { DeliverDeps } from '../core/notifications/deliver-webhooks.js';
import type { WebhookRepo, WebhookSender } from '../core/notifications/ports.js';
import type { DeliveryPolicy } from '../core/notifications/webhook.js';
import { targetChecks, type TargetChecks } from './sources.js';

/** What the webhook routes and commands work on: a target URL is judged as a followed endpoint's is (and again at each delivery). */
export interface WebhookParts extends TargetChecks {
  webhooks: WebhookRepo;
  /** Whether a URL is sent Discord messages rather than Standard Webhooks events. */
  isDiscord: (url: string) => boolean;
}

/** The webhook routes' and commands' parts; `resolve` is the DNS the creation-time check asks (default: the system resolver). */
export function createWebhookParts(config: Pick<Config, 'allowPrivateSources'>, pool: pg.Pool, resolve?: OutboundOptions['resolve']): WebhookParts {
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

/** What the `deliver-webhooks` job sends with (`policy`: tests' quicker retries). */
export function createDeliverDeps(config: Pick<Config, 'allowPrivateSources' | 'publicUrl'>, pool: pg.Pool, policy?: DeliveryPolicy): DeliverDeps {
  return { webhooks: createWebhookRepo(pool), sender: createSender(config), ...(policy ? { policy } : {}) };
}
