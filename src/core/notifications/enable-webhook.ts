// Decisions: docs/decisions/0058-webhook-delivery.md
import type { WebhookRepo } from './ports.js';
import { findWebhook, webhookNotFound } from './remove-webhook.js';
import type { Webhook } from './webhook.js';

/**
 * Enables a webhook again (after it was disabled for failing, or to forget its failures): its
 * pending deliveries are due at once and new events reach it. With an `owner`, only that user's
 * webhook. Throws `webhook_not_found`.
 */
export async function enableWebhook(deps: { webhooks: WebhookRepo }, id: string, owner?: string): Promise<Webhook> {
  if (owner !== undefined) await findWebhook(deps, id, owner);
  const webhook = await deps.webhooks.enable(id);
  if (webhook === null) throw webhookNotFound(id);
  return webhook;
}
