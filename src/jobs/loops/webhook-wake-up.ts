// Decisions: docs/decisions/0101-an-idle-kura-writes-nothing.md
import type { ChangeFeed } from '../../shared/change-feed.js';
import type { WebhookRepo } from '../../core/notifications/ports.js';
import type { BackgroundLog, WebhookDrains } from '../job-work.js';
import { wakeEvery } from '../../shared/wake-ups.js';

/** The backstop looks this often (seconds) for a delivery whose drain was never asked for. */
export const WEBHOOK_BACKSTOP_SECONDS = 600;

/**
 * The webhook wake-up loop of the catalogue: each new event that made a delivery
 * (WEBHOOK_EVENTS_CHANNEL, migration 0029), and the start (events committed while no worker ran),
 * asks for a `deliver-webhooks` drain now. On its timer, a backstop: a delivery already due (its
 * drain lost with a worker, say) is asked for too. The backstop reads, and sends a job only then:
 * an idle archive writes nothing for it.
 */
export function startWebhookWakeUp(
  context: { jobs: WebhookDrains; webhooks?: { deps: { webhooks: Pick<WebhookRepo, 'nextDueAt'> } }; log: BackgroundLog },
  wake: { feed: ChangeFeed; everySeconds: number },
): () => void {
  let stopped = false;
  const ask = () => {
    if (stopped) return;
    context.jobs.deliverWebhooks().catch((error: Error) => context.log.warn({ err: error }, 'could not queue webhook deliveries'));
  };
  const stopAsking = () => {
    stopped = true;
  };
  wake.feed.onChange(ask);
  ask();
  const repo = context.webhooks?.deps.webhooks;
  if (repo === undefined) return stopAsking; // no webhooks wired (a test's worker): no backstop
  const backstop = async () => {
    const due = await repo.nextDueAt();
    if (due !== null && due.getTime() <= Date.now()) ask();
  };
  const stopBackstop = wakeEvery(
    wake.everySeconds * 1000,
    () => void backstop().catch((error: Error) => context.log.warn({ err: error }, 'could not look for due webhook deliveries')),
  );
  return () => {
    stopAsking();
    stopBackstop();
  };
}
