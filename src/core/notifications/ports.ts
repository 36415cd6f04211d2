import type { Attempt, ClaimedDelivery, Delivery, EventType, Webhook, WebhookTarget, OutboxEvent } from './webhook.js';

export interface NewWebhook {
  id: string;
  url: string;
  events: EventType[] | null;
  channelId: string | null;
  secret: string;
  createdBy: string;
  owner: string | null;
}

/** How a try ended, as the repo records it. */
export interface AttemptOutcome {
  attempt: Attempt;
  at: Date;
  /** Delivered: null. Failed: when to try again, or null to give up. */
  retryAt: Date | null;
  delivered: boolean;
}

export interface WebhookRepo {
  /**
   * Adds a webhook. One with an owner is added only while the owner has fewer than `perOwner`
   * (counted and inserted under a lock on the owner, so adds in parallel cannot pass it): null when not.
   */
  add(webhook: NewWebhook, perOwner: number): Promise<Webhook | null>;
  /** Every webhook, or only those `owner` owns. */
  list(owner?: string): Promise<Webhook[]>;
  get(id: string): Promise<Webhook | null>;
  /** False when there was none. */
  remove(id: string): Promise<boolean>;
  /** Clears its disabled and failing marks and makes its pending deliveries due now; null when there is none. */
  enable(id: string): Promise<Webhook | null>;
  /** Its latest deliveries, newest first. */
  deliveries(webhookId: string, limit: number): Promise<Delivery[]>;
  /** Writes a `webhook.test` event with one delivery, to this webhook only. */
  enqueueTest(webhookId: string, data: Record<string, unknown>): Promise<string>;
  /**
   * Claims up to `limit` due deliveries (for `leaseSeconds`; another worker takes them once the
   * claim runs out), each the earliest undelivered one of its webhook and record.
   */
  claimDue(limit: number, leaseSeconds: number): Promise<ClaimedDelivery[]>;
  /**
   * Records a try; a webhook failing since before `disable.before` is disabled with its `reason`.
   * Resolves true when this try disabled it.
   */
  recordAttempt(delivery: ClaimedDelivery, outcome: AttemptOutcome, disable: { before: Date; reason: string }): Promise<boolean>;
  /** When the next undelivered delivery is due, or null. */
  nextDueAt(): Promise<Date | null>;
  /** Deletes deliveries delivered or given up before `before`, then events left without deliveries; returns how many rows went. */
  prune(before: Date): Promise<number>;
}

/** Sends one event to one webhook (signed, through the SSRF guard, 10 s at most). Never throws. */
export interface WebhookSender {
  send(webhook: WebhookTarget, event: OutboxEvent, at: Date): Promise<Attempt>;
}
