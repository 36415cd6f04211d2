import type { WebhookRepo } from './ports.js';
import { findWebhook } from './remove-webhook.js';

/**
 * Queues a `webhook.test` event to this webhook only (with an `owner`, only one of theirs);
 * resolves with the event's id. Throws `webhook_not_found`.
 */
export async function sendTestEvent(deps: { webhooks: WebhookRepo }, id: string, now: Date, owner?: string): Promise<string> {
  await findWebhook(deps, id, owner);
  return deps.webhooks.enqueueTest(id, { webhookId: id, message: 'A test event from Kura.', sentAt: now.toISOString() });
}
