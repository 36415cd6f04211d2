import { randomBytes } from 'node:crypto';
import { onlineBody, signedMessage, type SubscriptionBody, type Tampering } from './eventsub-messages.js';

// The EventSub part of the STAND-IN Helix (test/support/helix-stand-in.ts), as hard as Twitch's:
// - POST /helix/eventsub/subscriptions (reference, "Create EventSub Subscription"): a JSON body of
//   type, version, condition and transport {method: "webhook", callback, secret}; the secret is 10
//   to 100 ASCII characters; the callback must be https on port 443 (handling-webhook-events: "Your
//   callback must use SSL and listen on port 443") unless the test turns that off, saying so: Kura
//   under test listens on http://127.0.0.1; a broadcaster Twitch does not have is 400; the same
//   type, condition and callback again is 409 "subscription already exists"; else 202 with the
//   subscription, `webhook_callback_verification_pending`;
// - then, at once, the verification (handling-webhook-events, "Responding to a challenge
//   request"): a signed `webhook_callback_verification` POST with a challenge; only a 200 whose
//   body is the challenge itself enables the subscription, anything else fails it and Twitch
//   deletes it (`webhook_callback_verification_failed`);
// - a `stream.online` notification of an enabled subscription, signed with its secret, sent when a
//   test says so (or tampered with: another secret, an old timestamp, an id sent before).

export interface StandInSubscription {
  body: SubscriptionBody;
  login: string;
  secret: string;
}

export interface EventSubStandIn {
  /** Every subscription Twitch holds, by id. */
  subscriptions: Map<string, StandInSubscription>;
  /** Every verification made: the login, and whether the callback echoed the challenge. */
  verifications: Array<{ login: string; ok: boolean }>;
  /** Resolves once `login` has an enabled subscription (its verification passed). */
  subscribed(login: string): Promise<StandInSubscription>;
  /** Resolves once `count` verifications were made in all, passed or failed. */
  verified(count: number): Promise<void>;
  /** Sends `login`'s enabled subscription a `stream.online` of `streamId`; the callback's answer. */
  sendOnline(login: string, streamId: string, tampering?: Tampering): Promise<{ status: number; text: string }>;
}

/** Twitch's subscriptions of one application; `users` is the stand-in's channels (login → display name), `idOf` their ids. */
export function eventSubStandIn(users: Map<string, string>, idOf: (login: string) => string, options: { requireHttps: boolean }) {
  const subscriptions = new Map<string, StandInSubscription>();
  const verifications: EventSubStandIn['verifications'] = [];
  const waiting = new Set<() => void>();
  const enabled = (login: string) => [...subscriptions.values()].find((s) => s.login === login && s.body.status === 'enabled');
  const loginOf = (id: string) => [...users.keys()].find((login) => idOf(login) === id);

  const verify = async (subscription: StandInSubscription) => {
    const challenge = randomBytes(16).toString('base64url');
    const message = signedMessage('webhook_callback_verification', { challenge, subscription: subscription.body }, subscription.secret);
    const answer = await fetch(subscription.body.transport.callback, { method: 'POST', headers: message.headers, body: message.body })
      .then(async (response) => ({ status: response.status, text: await response.text() }))
      .catch(() => ({ status: 0, text: '' }));
    const ok = answer.status === 200 && answer.text === challenge;
    verifications.push({ login: subscription.login, ok });
    if (ok) subscription.body.status = 'enabled';
    else subscriptions.delete(subscription.body.id);
    for (const check of waiting) check();
  };

  /** POST /helix/eventsub/subscriptions: the status and body Twitch answers (the caller is authenticated already). */
  const create = (raw: string): { status: number; body: unknown } => {
    const bad = (message: string) => ({ status: 400, body: { error: 'Bad Request', status: 400, message } });
    let request: { type?: unknown; version?: unknown; condition?: { broadcaster_user_id?: unknown }; transport?: Record<string, unknown> };
    try {
      request = JSON.parse(raw) as typeof request;
    } catch {
      return bad('invalid JSON body');
    }
    const { type, version, condition, transport } = request;
    if (type !== 'stream.online' || version !== '1') return bad('unsupported subscription type or version');
    const login = typeof condition?.broadcaster_user_id === 'string' ? loginOf(condition.broadcaster_user_id) : undefined;
    if (login === undefined) return bad('invalid condition: no such broadcaster_user_id');
    const { method, callback, secret } = transport ?? {};
    if (method !== 'webhook' || typeof callback !== 'string' || !URL.canParse(callback)) return bad('invalid transport');
    const url = new URL(callback);
    if (options.requireHttps && (url.protocol !== 'https:' || url.port !== '')) return bad('invalid transport callback: must be https on port 443');
    if (typeof secret !== 'string' || !/^[\x20-\x7e]{10,100}$/.test(secret)) return bad('invalid transport secret: 10 to 100 ASCII characters');
    const exists = [...subscriptions.values()].some((s) => s.login === login && s.body.transport.callback === callback);
    if (exists) return { status: 409, body: { error: 'Conflict', status: 409, message: 'subscription already exists' } };
    const body: SubscriptionBody = {
      id: crypto.randomUUID(),
      status: 'webhook_callback_verification_pending',
      type: 'stream.online',
      version: '1',
      cost: 1,
      condition: { broadcaster_user_id: idOf(login) },
      transport: { method: 'webhook', callback },
      created_at: new Date().toISOString(),
    };
    const subscription = { body, login, secret };
    subscriptions.set(body.id, subscription);
    setImmediate(() => void verify(subscription)); // after the 202, as Twitch does
    return { status: 202, body: { data: [body], total: subscriptions.size, total_cost: subscriptions.size, max_total_cost: 10_000 } };
  };

  const when = <T>(found: () => T | undefined) =>
    new Promise<T>((resolve) => {
      const check = () => {
        const value = found();
        if (value === undefined) return;
        waiting.delete(check);
        resolve(value);
      };
      waiting.add(check);
      check();
    });
  const standIn: EventSubStandIn = {
    subscriptions,
    verifications,
    subscribed: (login) => when(() => enabled(login)),
    verified: (count) => when(() => (verifications.length >= count ? true : undefined)).then(() => undefined),
    async sendOnline(login, streamId, tampering) {
      const subscription = enabled(login);
      if (subscription === undefined) throw new Error(`the stand-in holds no enabled subscription of ${login}`);
      const broadcaster = { id: idOf(login), login, name: users.get(login) ?? login };
      const message = signedMessage('notification', onlineBody(subscription.body, broadcaster, streamId), subscription.secret, tampering);
      const response = await fetch(subscription.body.transport.callback, { method: 'POST', headers: message.headers, body: message.body });
      return { status: response.status, text: await response.text() };
    },
  };
  return { standIn, create };
}
