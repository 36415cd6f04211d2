import type { ChangeFeed } from '../../core/livestream/ports.js';
import type { BackgroundLog, WebhookDrains } from '../job-work.js';

/**
 * The webhook wake-up loop of the catalogue: each new webhook event (WEBHOOK_EVENTS_CHANNEL), and
 * the start (events committed while no worker ran), asks for a `deliver-webhooks` drain now.
 */
export function startWebhookWakeUp(context: { jobs: WebhookDrains; log: BackgroundLog }, wake: { feed: ChangeFeed }): () => void {
  let stopped = false;
  const ask = () => {
    if (stopped) return;
    context.jobs.deliverWebhooks().catch((error: Error) => context.log.warn({ err: error }, 'could not queue webhook deliveries'));
  };
  wake.feed.onChange(ask);
  ask();
  return () => {
    stopped = true;
  };
}
