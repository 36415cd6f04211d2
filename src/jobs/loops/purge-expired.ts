import type { ExpiredPurger } from '../../core/accounts/ports.js';
import type { WebhookRepo } from '../../core/notifications/ports.js';
import { pruneWebhookHistory } from '../../core/notifications/prune-webhook-history.js';
import type { BackgroundLog } from '../job-work.js';

/**
 * Every `everySeconds`, deletes expired sessions, login attempts and rate-limit windows (each
 * worker does; the delete is idempotent and cheap). Expired rows are already refused when read:
 * this only keeps the tables small. Runs once at start. Returns a stop function.
 */
export function startPurgingExpired(
  purger: { purgeExpired(): Promise<unknown> },
  options: { everySeconds: number; onError: (error: Error) => void },
): () => void {
  const purge = () => void purger.purgeExpired().catch(options.onError);
  purge();
  const timer = setInterval(purge, options.everySeconds * 1000);
  timer.unref();
  return () => clearInterval(timer);
}

/** The purge-expired loop of the catalogue: sessions, login attempts and rate-limit windows, on its timer. */
export function startPurgeExpiredLoop(context: { purger: ExpiredPurger; log: BackgroundLog }, wake: { everySeconds: number }): () => void {
  return startPurgingExpired(context.purger, {
    everySeconds: wake.everySeconds,
    onError: (error) => context.log.warn({ err: error }, 'purging expired sessions failed'),
  });
}

/** The prune-webhook-history loop of the catalogue, on its timer (each worker; the deletes are idempotent); nothing where webhooks are not wired. */
export function startPruneWebhookHistoryLoop(
  context: { webhooks?: { deps: { webhooks: Pick<WebhookRepo, 'prune'> } }; log: BackgroundLog },
  wake: { everySeconds: number },
): () => void {
  const webhooks = context.webhooks?.deps;
  if (webhooks === undefined) return () => undefined;
  return startPurgingExpired(
    { purgeExpired: () => pruneWebhookHistory(webhooks, new Date()) },
    { everySeconds: wake.everySeconds, onError: (error) => context.log.warn({ err: error }, 'pruning webhook history failed') },
  );
}
