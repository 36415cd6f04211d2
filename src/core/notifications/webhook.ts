import type { Follow } from '../follows/follow.js';
import type { Livestream } from '../records/livestream.js';
import type { RateLimit } from '../rate-limit.js';

/** Every event a webhook may ask for. `webhook.test` is sent only on request, to one webhook. */
export const EVENT_TYPES = [
  'livestream.queued',
  'livestream.live',
  'livestream.finished',
  'livestream.failed',
  'livestream.removed',
  'moment.added',
  'follow.unhealthy',
  'webhook.test',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** A webhook as its admin sees it (never its secret, which is shown once when it is added). */
export interface Webhook {
  id: string;
  url: string;
  /** The event types it wants; null: all. */
  events: EventType[] | null;
  /** Only this channel's records; null: all channels. */
  channelId: string | null;
  createdBy: string;
  /** The user it belongs to (provider/userId): sent only their records' events. Null: the instance's. */
  owner: string | null;
  createdAt: Date;
  /** Since when every delivery fails; null while the last one succeeded. */
  failingSince: Date | null;
  disabledAt: Date | null;
  disabledReason: string | null;
}

/** How many personal webhooks one user may have. */
export const PERSONAL_WEBHOOK_LIMIT = 5;

/** How many webhooks one caller may add (every attempt counts): enough to set up, not to churn. */
export const WEBHOOK_CREATION_RATE: RateLimit = { limit: 30, windowSeconds: 60 };

/** How many test events one webhook may be sent: each is retried for a day, to a URL its owner chose. */
export const TEST_EVENT_RATE: RateLimit = { limit: 10, windowSeconds: 60 };

/** What a delivery needs of its webhook: where, and the key it signs with. */
export interface WebhookTarget {
  id: string;
  url: string;
  secret: string;
  /** A personal webhook's user (sent records and follows as the public sees them); null: the instance's (as the admin does). */
  owner: string | null;
}

/** An event of the outbox; `id` is its `webhook-id` on every try. */
export interface OutboxEvent {
  id: string;
  type: EventType;
  occurredAt: Date;
  /** The record as it was when the event happened (livestream events). */
  record: Livestream | null;
  /** What a `webhook.test` carries. */
  data: Record<string, unknown> | null;
  /** The follow as it was when the event happened (follow events). */
  follow?: Follow | null;
}

/** One webhook × one event: its attempts so far. */
export interface Delivery {
  id: string;
  webhookId: string;
  eventId: string;
  eventType: EventType;
  livestreamId: string | null;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  lastDurationMs: number | null;
  lastAttemptAt: Date | null;
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
  givenUpAt: Date | null;
  createdAt: Date;
}

/** A delivery a worker claimed: its webhook and its event. */
export interface ClaimedDelivery {
  id: string;
  webhook: WebhookTarget;
  event: OutboxEvent;
  attempts: number;
  firstAttemptAt: Date | null;
}

/** How one try went: a 2xx is delivered; anything else (no answer: statusCode null) is retried. */
export interface Attempt {
  statusCode: number | null;
  durationMs: number;
  error: string | null;
}

/** How long a delivery is retried, and when its webhook is disabled. */
export interface DeliveryPolicy {
  retryDelaysSeconds: number[];
  giveUpAfterSeconds: number;
  disableAfterSeconds: number;
}

export const DELIVERY_POLICY: DeliveryPolicy = {
  /** Delay before each retry (the last repeats): within 10 s, within a minute, then growing. */
  retryDelaysSeconds: [5, 30, 120, 600, 1800, 3600, 2 * 3600, 4 * 3600],
  /** Retried for at least this long after its first try, then given up. */
  giveUpAfterSeconds: 24 * 3600,
  /** A webhook whose every delivery failed for this long is disabled. */
  disableAfterSeconds: 5 * 24 * 3600,
};

/** When a delivery that failed its `attempts`-th try is tried again. */
export function retryDelaySeconds(attempts: number, policy: DeliveryPolicy = DELIVERY_POLICY): number {
  const delays = policy.retryDelaysSeconds;
  return delays[Math.min(attempts, delays.length) - 1] as number;
}

/** Whether a try's answer delivered the event. */
export function delivered(attempt: Attempt): boolean {
  return attempt.statusCode !== null && attempt.statusCode >= 200 && attempt.statusCode < 300;
}
