import { countAttempt, type RateLimiter } from '../rate-limit.js';
import type { WebhookRepo } from './ports.js';
import { findWebhook } from './remove-webhook.js';
import { TEST_EVENT_RATE } from './webhook.js';

/**
 * Queues a `webhook.test` event to this webhook only (with an `owner`, only one of theirs);
 * resolves with the event's id. Each webhook is sent at most TEST_EVENT_RATE (counted once the
 * webhook is found, before the event is written, so a parallel burst cannot pass it).
 * Throws `webhook_not_found`, `too_many_requests`.
 */
export async function sendTestEvent(deps: { webhooks: WebhookRepo; rateLimiter: RateLimiter }, id: string, now: Date, owner?: string): Promise<string> {
  await findWebhook(deps, id, owner);
  await countAttempt(deps, 'webhook-test', id, TEST_EVENT_RATE, 'test events to this webhook');
  return deps.webhooks.enqueueTest(id, { webhookId: id, message: 'A test event from Kura.', sentAt: now.toISOString() });
}
