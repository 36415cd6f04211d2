// Decisions: docs/decisions/0057-webhook-events-with-the-change.md
import type { WebhookRepo } from './ports.js';

/** Delivered or given-up deliveries are kept this long (GET /api/webhooks/{id}/deliveries shows them). */
export const WEBHOOK_HISTORY_DAYS = 30;

/**
 * Deletes deliveries delivered or given up more than WEBHOOK_HISTORY_DAYS ago, then every event no
 * delivery is left for (those no webhook wanted, at once: fan-out happens when an event is written,
 * so nothing would ever send them). A delivery still due is kept, however old. Returns how many rows went.
 */
export function pruneWebhookHistory(deps: { webhooks: Pick<WebhookRepo, 'prune'> }, now: Date): Promise<number> {
  return deps.webhooks.prune(new Date(now.getTime() - WEBHOOK_HISTORY_DAYS * 86_400_000));
}
