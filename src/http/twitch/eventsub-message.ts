// Decisions: docs/decisions/0138-twitch-eventsub-stream-online.md
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** A message older than this is refused (Twitch's docs, "Guarding against replay attacks"). */
export const EVENTSUB_MAX_AGE_MS = 10 * 60_000;

/** What a message that Twitch signed says of itself (its `Twitch-Eventsub-Message-*` headers). */
export interface SignedMessage {
  id: string;
  /** `webhook_callback_verification`, `notification` or `revocation`. */
  type: string;
}

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[`twitch-eventsub-message-${name}`];
  return typeof value === 'string' ? value : undefined;
};

/**
 * Checks that Twitch sent this message (decision 0138; Twitch's docs, "Verifying the event
 * message"): `Twitch-Eventsub-Message-Signature` is `sha256=` and the hex HMAC-SHA256, keyed with
 * the subscription's secret, of the message id, its timestamp and the raw body; and its timestamp
 * is within EVENTSUB_MAX_AGE_MS of `now`. Returns the message's id and type, or why it is refused.
 */
export function checkSignedMessage(headers: IncomingHttpHeaders, raw: Buffer, secret: string, now: number): SignedMessage | { refused: string } {
  const [id, timestamp, signature, type] = [header(headers, 'id'), header(headers, 'timestamp'), header(headers, 'signature'), header(headers, 'type')];
  if (id === undefined || timestamp === undefined || signature === undefined || type === undefined) {
    return { refused: 'A Twitch EventSub message carries Twitch-Eventsub-Message-Id, -Timestamp, -Signature and -Type.' };
  }
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(id).update(timestamp).update(raw).digest('hex')}`);
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { refused: 'The message’s signature is not Twitch’s.' };
  const sentAt = Date.parse(timestamp);
  if (!Number.isFinite(sentAt) || now - sentAt > EVENTSUB_MAX_AGE_MS) return { refused: 'The message is more than 10 minutes old (a replay).' };
  return { id, type };
}

/**
 * The ids of the messages handled in the last EVENTSUB_MAX_AGE_MS (older ones are refused by their
 * timestamp): Twitch sends a message again when unsure it arrived, and a copy is acknowledged
 * without acting on it again.
 */
export class SeenMessages {
  private readonly seen = new Map<string, number>();

  /** Whether `id` was handled already. */
  has(id: string, now: number): boolean {
    for (const [old, at] of this.seen) {
      if (now - at <= EVENTSUB_MAX_AGE_MS) break; // in insertion order: the rest are younger
      this.seen.delete(old);
    }
    return this.seen.has(id);
  }

  /** Notes `id` as handled (once acted on: a message that failed is acted on when Twitch sends it again). */
  add(id: string, now: number): void {
    this.seen.set(id, now);
  }
}
