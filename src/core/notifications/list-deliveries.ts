import type { WebhookRepo } from './ports.js';
import { webhookNotFound } from './remove-webhook.js';
import type { Delivery } from './webhook.js';

/** A webhook's latest deliveries, newest first (at most `limit`). Throws `webhook_not_found`. */
export async function listDeliveries(deps: { webhooks: WebhookRepo }, id: string, limit = 50): Promise<Delivery[]> {
  if ((await deps.webhooks.get(id)) === null) throw webhookNotFound(id);
  return deps.webhooks.deliveries(id, limit);
}
