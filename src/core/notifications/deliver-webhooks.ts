// Decisions: docs/decisions/0058-webhook-delivery.md
import type { WebhookRepo, WebhookSender } from './ports.js';
import { delivered, DELIVERY_POLICY, retryDelaySeconds, type ClaimedDelivery, type DeliveryPolicy } from './webhook.js';

export interface DeliverDeps {
  webhooks: WebhookRepo;
  sender: WebhookSender;
  now?: () => Date;
  /** Default DELIVERY_POLICY (tests: quicker retries). */
  policy?: DeliveryPolicy;
  /** Told how each attempt ended: delivered, failed (retried later) or given up (the worker's metrics). */
  onAttempt?: (result: 'delivered' | 'failed' | 'given_up') => void;
}

/** Deliveries sent at once by one worker. */
const BATCH = 10;
/** A claimed delivery is this worker's for this long (a try takes 10 s at most). */
const LEASE_SECONDS = 60;

/** A webhook a drain disabled: the one whose every delivery failed for five days. */
export interface DisabledWebhook {
  id: string;
  url: string;
  reason: string;
}

export interface Drained {
  /** When the next delivery is due; null: none waits. */
  next: Date | null;
  /** The webhooks this drain disabled. */
  disabled: DisabledWebhook[];
}

/**
 * Sends every due delivery (a record's events in order, each webhook apart), recording each try:
 * a 2xx is delivered; anything else is tried again after a growing delay, for at least 24 hours
 * after its first try; a webhook failing for five days is disabled.
 */
export async function deliverWebhooks(deps: DeliverDeps): Promise<Drained> {
  const now = deps.now ?? (() => new Date());
  const disabled: DisabledWebhook[] = [];
  for (;;) {
    const batch = await deps.webhooks.claimDue(BATCH, LEASE_SECONDS);
    if (batch.length === 0) break;
    const found = await Promise.all(batch.map((delivery) => deliverOne(deps, delivery, now)));
    disabled.push(...found.filter((webhook) => webhook !== null));
  }
  return { next: await deps.webhooks.nextDueAt(), disabled };
}

/** Tries one delivery; resolves with its webhook when this try disabled it. */
async function deliverOne(deps: DeliverDeps, delivery: ClaimedDelivery, now: () => Date): Promise<DisabledWebhook | null> {
  const policy = deps.policy ?? DELIVERY_POLICY;
  const attempt = await deps.sender.send(delivery.webhook, delivery.event, now());
  const at = now();
  const ok = delivered(attempt);
  const attempts = delivery.attempts + 1;
  const retryAt = new Date(at.getTime() + retryDelaySeconds(attempts, policy) * 1000);
  const giveUp = !ok && at.getTime() - (delivery.firstAttemptAt ?? at).getTime() >= policy.giveUpAfterSeconds * 1000;
  deps.onAttempt?.(ok ? 'delivered' : giveUp ? 'given_up' : 'failed');
  const reason = `Every delivery failed for ${policy.disableAfterSeconds / 86400} days (last: ${attempt.error ?? `HTTP ${attempt.statusCode}`}).`;
  const disabledNow = await deps.webhooks.recordAttempt(
    delivery,
    { attempt, at, delivered: ok, retryAt: ok || giveUp ? null : retryAt },
    { before: new Date(at.getTime() - policy.disableAfterSeconds * 1000), reason },
  );
  return disabledNow ? { id: delivery.webhook.id, url: delivery.webhook.url, reason } : null;
}
