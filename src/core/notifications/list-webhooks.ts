import type { WebhookRepo } from './ports.js';
import type { Webhook } from './webhook.js';

/** Every webhook, oldest first, without their secrets. */
export function listWebhooks(deps: { webhooks: WebhookRepo }): Promise<Webhook[]> {
  return deps.webhooks.list();
}
