import type { WebhookRepo } from './ports.js';
import { webhookNotFound } from './remove-webhook.js';

/** Queues a `webhook.test` event to this webhook only; resolves with the event's id. Throws `webhook_not_found`. */
export async function sendTestEvent(deps: { webhooks: WebhookRepo }, id: string, now: Date): Promise<string> {
  const webhook = await deps.webhooks.get(id);
  if (webhook === null) throw webhookNotFound(id);
  return deps.webhooks.enqueueTest(id, { webhookId: id, message: 'A test event from Kura.', sentAt: now.toISOString() });
}
