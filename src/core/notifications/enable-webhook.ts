import type { WebhookRepo } from './ports.js';
import { webhookNotFound } from './remove-webhook.js';
import type { Webhook } from './webhook.js';

/**
 * Enables a webhook again (after it was disabled for failing, or to forget its failures): its
 * pending deliveries are due at once and new events reach it. Throws `webhook_not_found`.
 */
export async function enableWebhook(deps: { webhooks: WebhookRepo }, id: string): Promise<Webhook> {
  const webhook = await deps.webhooks.enable(id);
  if (webhook === null) throw webhookNotFound(id);
  return webhook;
}
