import type { Delivery, Webhook } from '../../core/notifications/webhook.js';
import type { DeliveryJson, WebhookJson } from './webhooks.schema.js';

const iso = (at: Date | null) => at?.toISOString() ?? null;

/** A webhook as the API shows it (`isDiscord`: whether its URL gets Discord messages): never its secret. */
export function presentWebhook(webhook: Webhook, isDiscord: (url: string) => boolean): WebhookJson {
  return {
    id: webhook.id,
    url: webhook.url,
    discord: isDiscord(webhook.url),
    events: webhook.events,
    channelId: webhook.channelId,
    createdBy: webhook.createdBy,
    owner: webhook.owner,
    createdAt: webhook.createdAt.toISOString(),
    failingSince: iso(webhook.failingSince),
    disabledAt: iso(webhook.disabledAt),
    disabledReason: webhook.disabledReason,
  };
}

export function presentDelivery(delivery: Delivery): DeliveryJson {
  return {
    id: delivery.id,
    eventId: delivery.eventId,
    eventType: delivery.eventType,
    livestreamId: delivery.livestreamId,
    status: delivery.deliveredAt ? 'delivered' : delivery.givenUpAt ? 'given_up' : 'pending',
    attempts: delivery.attempts,
    lastStatusCode: delivery.lastStatusCode,
    lastError: delivery.lastError,
    lastDurationMs: delivery.lastDurationMs,
    lastAttemptAt: iso(delivery.lastAttemptAt),
    nextAttemptAt: iso(delivery.nextAttemptAt),
    deliveredAt: iso(delivery.deliveredAt),
    givenUpAt: iso(delivery.givenUpAt),
    createdAt: delivery.createdAt.toISOString(),
  };
}
