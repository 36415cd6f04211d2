// Decisions: docs/decisions/0059-personal-webhooks.md
import type { WebhookRepo } from './ports.js';
import type { Webhook } from './webhook.js';

/** Every webhook (with an `owner`, only theirs), oldest first, without their secrets. */
export function listWebhooks(deps: { webhooks: WebhookRepo }, owner?: string): Promise<Webhook[]> {
  return deps.webhooks.list(owner);
}
