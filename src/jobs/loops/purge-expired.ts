import type { ExpiredPurger } from '../../core/accounts/ports.js';
import type { WebhookRepo } from '../../core/notifications/ports.js';
import { pruneWebhookHistory } from '../../core/notifications/prune-webhook-history.js';
import type { BackgroundLog } from '../job-work.js';
import { startEvery } from '../runtime/every.js';

/**
 * The purge-expired loop of the catalogue: deletes expired sessions, login attempts and rate-limit
 * windows at start and on its timer (each worker does; the delete is idempotent and cheap). Expired
 * rows are already refused when read: this only keeps the tables small.
 */
export function startPurgeExpiredLoop(context: { purger: ExpiredPurger; log: BackgroundLog }, wake: { everySeconds: number }): () => Promise<void> {
  return startEvery(() => context.purger.purgeExpired(), {
    everySeconds: wake.everySeconds,
    onError: (error) => context.log.warn({ err: error }, 'purging expired sessions failed'),
  });
}

/** The prune-webhook-history loop of the catalogue, on its timer (each worker; the deletes are idempotent); nothing where webhooks are not wired. */
export function startPruneWebhookHistoryLoop(
  context: { webhooks?: { deps: { webhooks: Pick<WebhookRepo, 'prune'> } }; log: BackgroundLog },
  wake: { everySeconds: number },
): () => Promise<void> {
  const webhooks = context.webhooks?.deps;
  if (webhooks === undefined) return async () => undefined;
  return startEvery(() => pruneWebhookHistory(webhooks, new Date()), {
    everySeconds: wake.everySeconds,
    onError: (error) => context.log.warn({ err: error }, 'pruning webhook history failed'),
  });
}
