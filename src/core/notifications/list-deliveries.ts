import type { WebhookRepo } from './ports.js';
import { findWebhook } from './remove-webhook.js';
import type { Delivery } from './webhook.js';

/** A webhook's latest deliveries, newest first (at most `limit`); with an `owner`, only of theirs. Throws `webhook_not_found`. */
export async function listDeliveries(deps: { webhooks: WebhookRepo }, id: string, options: { limit?: number; owner?: string } = {}): Promise<Delivery[]> {
  await findWebhook(deps, id, options.owner);
  return deps.webhooks.deliveries(id, options.limit ?? 50);
}
