import { createHmac, randomUUID } from 'node:crypto';

// Messages of Twitch's EventSub webhook transport, built and signed as Twitch does (STAND-IN for
// Twitch's side; dev.twitch.tv/docs/eventsub/handling-webhook-events, "Verifying the event
// message": `Twitch-Eventsub-Message-Signature` is `sha256=` + the hex HMAC-SHA256, keyed with the
// subscription's secret, of the message id + the timestamp + the raw body; the timestamp is
// RFC 3339 with nanoseconds; "Responding to a challenge request", "Processing an event"; the
// `stream.online` event: dev.twitch.tv/docs/eventsub/eventsub-subscription-types, "Stream Online").

export type MessageType = 'webhook_callback_verification' | 'notification' | 'revocation';

/** A subscription as Twitch describes it in every message. */
export interface SubscriptionBody {
  id: string;
  status: string;
  type: 'stream.online';
  version: '1';
  cost: number;
  condition: { broadcaster_user_id: string };
  transport: { method: 'webhook'; callback: string };
  created_at: string;
}

export interface SignedRequest {
  headers: Record<string, string>;
  body: string;
}

/** What may be wrong with a message a test sends: signed with another secret, sent long ago, or an id of its own (a copy). */
export interface Tampering {
  secret?: string;
  sentAt?: Date;
  id?: string;
}

/** Twitch's timestamps: RFC 3339 with nanoseconds. */
const rfc3339 = (at: Date) => at.toISOString().replace(/\.(\d{3})Z$/, '.$1456789Z');

/** A message of `type` with `body`, signed with `secret` as Twitch signs it (or tampered with). */
export function signedMessage(type: MessageType, body: object, secret: string, tampering: Tampering = {}): SignedRequest {
  const id = tampering.id ?? randomUUID();
  const timestamp = rfc3339(tampering.sentAt ?? new Date());
  const raw = JSON.stringify(body);
  const signature = createHmac('sha256', tampering.secret ?? secret)
    .update(id + timestamp + raw)
    .digest('hex');
  return {
    headers: {
      'content-type': 'application/json',
      'twitch-eventsub-message-id': id,
      'twitch-eventsub-message-retry': '0',
      'twitch-eventsub-message-type': type,
      'twitch-eventsub-message-signature': `sha256=${signature}`,
      'twitch-eventsub-message-timestamp': timestamp,
      'twitch-eventsub-subscription-type': 'stream.online',
      'twitch-eventsub-subscription-version': '1',
    },
    body: raw,
  };
}

/** A `stream.online` notification of this broadcaster's stream. */
export function onlineBody(subscription: SubscriptionBody, broadcaster: { id: string; login: string; name: string }, streamId: string): object {
  return {
    subscription: { ...subscription, status: 'enabled' },
    event: {
      id: streamId,
      broadcaster_user_id: broadcaster.id,
      broadcaster_user_login: broadcaster.login,
      broadcaster_user_name: broadcaster.name,
      type: 'live',
      started_at: new Date().toISOString(),
    },
  };
}

/** A subscription's description, for messages sent without a stand-in's subscription. */
export function subscriptionOf(broadcasterId: string, callback: string, status = 'enabled'): SubscriptionBody {
  return {
    id: randomUUID(),
    status,
    type: 'stream.online',
    version: '1',
    cost: 1,
    condition: { broadcaster_user_id: broadcasterId },
    transport: { method: 'webhook', callback },
    created_at: new Date().toISOString(),
  };
}
