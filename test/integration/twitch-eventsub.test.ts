import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFollowRepo } from '../../src/adapters/db/follow-repo.js';
import { parseConfig } from '../../src/config/config.js';
import { addFollow } from '../../src/core/follows/add-follow.js';
import type { FollowRepo } from '../../src/core/follows/ports.js';
import { startTwitchEventSubLoop } from '../../src/jobs/loops/twitch-eventsub.js';
import { FOLLOW_NOTIFY_CHANNEL } from '../../src/jobs/runtime/notify-channels.js';
import { listenForChanges } from '../../src/adapters/db/change-listener.js';
import { createChannelResolver, createEventSubSubscriber, followPolicy } from '../../src/wiring/follow-signals.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { onlineBody, signedMessage, subscriptionOf, type SignedRequest } from '../support/eventsub-messages.js';
import { startHelixStandIn, type HelixStandIn } from '../support/helix-stand-in.js';
import { createAnswerChecker } from '../support/openapi-check.js';

// Twitch's EventSub webhooks (decision 0138) against the real app, listening, and the STAND-IN
// Twitch (test/support/helix-stand-in.ts, eventsub-stand-in.ts; messages signed as Twitch signs
// them, test/support/eventsub-messages.ts). The stand-in takes Kura's http://127.0.0.1 callback
// (Twitch takes https on 443 alone), and KURA_TWITCH_EVENTSUB=on subscribes whatever the public URL.
let twitch: HelixStandIn;
let kura: TestApp;
let env: Record<string, string>;
let publicUrl: string;
let follows: FollowRepo;
let secret: string;
const stops: Array<() => Promise<void>> = [];

/** A port free now, so the public URL (the callback Twitch is given) is known before the app listens on it. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeEach(async () => {
  twitch = await startHelixStandIn({ requireHttpsCallback: false });
  for (const [login, name] of [
    ['alice', 'Alice'],
    ['bob', 'Bob'],
    ['carol', 'Carol'],
  ] as const)
    twitch.users.set(login, name);
  const port = await freePort();
  publicUrl = `http://127.0.0.1:${port}`;
  env = {
    KURA_PUBLIC_URL: publicUrl,
    KURA_ALLOW_PRIVATE_SOURCES: 'true',
    KURA_TWITCH_CLIENT_ID: twitch.clientId,
    KURA_TWITCH_CLIENT_SECRET: twitch.clientSecret,
    KURA_TWITCH_API_URL: twitch.apiUrl,
    KURA_TWITCH_AUTH_URL: twitch.authUrl,
    KURA_TWITCH_EVENTSUB: 'on',
  };
  kura = await startTestApp({ publicUrl: publicUrl }, { env });
  await kura.app.listen({ port, host: '127.0.0.1' });
  follows = createFollowRepo(kura.db.pool);
  secret = parseConfig(env).follow.twitch!.eventSub!.secret;
});
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
  await kura.close();
  await twitch.close();
});

const follow = (login: string) =>
  addFollow(
    { follows, resolver: createChannelResolver(parseConfig(env)), policy: followPolicy(parseConfig(env)) },
    { follow: { url: `https://www.twitch.tv/${login}` }, createdBy: 'local/root', now: new Date() },
  );
const post = (message: SignedRequest) => kura.app.inject({ method: 'POST', url: '/api/twitch/eventsub', headers: message.headers, payload: message.body });
const online = (login: string, streamId = '41234567890') =>
  onlineBody(subscriptionOf(twitch.users.has(login) ? '1' : '0', `${publicUrl}/api/twitch/eventsub`), { id: '1', login, name: login }, streamId);
/** The workers' notifications of follows (FOLLOW_NOTIFY_CHANNEL), on a connection of the test's own. */
async function followsFeed() {
  const feed = await listenForChanges(kura.db.url, () => undefined, FOLLOW_NOTIFY_CHANNEL);
  stops.push(() => feed.close());
  return feed;
}
const nextCheckOf = async (id: string) => (await kura.db.pool.query('select next_check_at from follows where id = $1', [id])).rows[0].next_check_at as Date;
const dueLater = (id: string) => kura.db.pool.query("update follows set next_check_at = now() + interval '1 hour' where id = $1", [id]);

describe('the EventSub callback (POST /api/twitch/eventsub)', () => {
  it('answers a verification its challenge as plain text, and a stream.online makes the channel’s follow due now, telling the workers', async () => {
    const verification = await post(
      signedMessage('webhook_callback_verification', { challenge: 'pogchamp-kappa-123', subscription: subscriptionOf('1', 'x') }, secret),
    );
    expect(verification.statusCode).toBe(200);
    expect(verification.headers['content-type']).toMatch(/^text\/plain/);
    expect(verification.body).toBe('pogchamp-kappa-123');

    const { id } = await follow('alice');
    await dueLater(id);
    const feed = await followsFeed();
    const told = new Promise<string | undefined>((resolve) => feed.onChange((payload) => payload === id && resolve(payload)));
    const before = Date.now();
    const answer = await post(signedMessage('notification', online('alice'), secret));
    expect(answer.statusCode).toBe(204);
    expect((await nextCheckOf(id)).getTime()).toBeLessThanOrEqual(Date.now());
    expect((await nextCheckOf(id)).getTime()).toBeGreaterThanOrEqual(before - 1000);
    // on kura_follows, as a resume: the worker holding it reads it again
    expect(await told).toBe(id);
    // the stored next check is past already (the worker writes its looks' times later): brought before it all the same, and told
    await kura.db.pool.query("update follows set next_check_at = now() - interval '1 minute' where id = $1", [id]);
    const stored = await nextCheckOf(id);
    const toldAgain = new Promise<void>((resolve) => feed.onChange((payload) => payload === id && resolve()));
    expect((await post(signedMessage('notification', online('alice'), secret))).statusCode).toBe(204);
    await toldAgain;
    expect((await nextCheckOf(id)).getTime()).toBeLessThan(stored.getTime());
  });

  it('refuses a forged signature, a message older than ten minutes and one without its headers (403, problem JSON), acting on none', async () => {
    const { id } = await follow('alice');
    await dueLater(id);
    const later = await nextCheckOf(id);
    const forged = await post(signedMessage('notification', online('alice'), secret, { secret: 'not-the-instance-secret' }));
    expect(forged.statusCode).toBe(403);
    expect(forged.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(forged.json()).toMatchObject({ status: 403, code: 'eventsub_signature_invalid' });
    const stale = await post(signedMessage('notification', online('alice'), secret, { sentAt: new Date(Date.now() - 11 * 60_000) }));
    expect(stale.statusCode).toBe(403);
    expect(stale.json().detail).toMatch(/more than 10 minutes old/);
    const bare = await kura.app.inject({ method: 'POST', url: '/api/twitch/eventsub', payload: online('alice') });
    expect(bare.statusCode).toBe(403);
    const forgedChallenge = await post(signedMessage('webhook_callback_verification', { challenge: 'x', subscription: {} }, 'another-secret-entirely'));
    expect(forgedChallenge.statusCode).toBe(403);
    expect(forgedChallenge.body).not.toBe('x');
    // a signed body changed on the way
    const tampered = signedMessage('notification', online('alice'), secret);
    expect((await post({ ...tampered, body: tampered.body.replace('alice', 'bobby') })).statusCode).toBe(403);
    expect(await nextCheckOf(id)).toEqual(later);
    // nine minutes is within Twitch's window: taken
    expect((await post(signedMessage('notification', online('alice'), secret, { sentAt: new Date(Date.now() - 9 * 60_000) }))).statusCode).toBe(204);
    expect((await nextCheckOf(id)).getTime()).toBeLessThan(later.getTime());
  });

  it('acknowledges a message sent again (the same id) without acting on it again, and a channel nobody follows without acting', async () => {
    const { id } = await follow('alice');
    const first = signedMessage('notification', online('alice'), secret);
    expect((await post(first)).statusCode).toBe(204);
    await dueLater(id);
    const later = await nextCheckOf(id);
    const again = await post(signedMessage('notification', online('alice'), secret, { id: first.headers['twitch-eventsub-message-id'] }));
    expect(again.statusCode).toBe(204);
    expect(await nextCheckOf(id)).toEqual(later);
    // a paused follow is not woken, nor is anything for a channel not followed
    await follows.update(id, { paused: true });
    expect((await post(signedMessage('notification', online('alice'), secret))).statusCode).toBe(204);
    expect(await nextCheckOf(id)).toEqual(later);
    expect((await post(signedMessage('notification', online('nobody'), secret))).statusCode).toBe(204);
  });

  it('answers as its OpenAPI document says, is open on a private instance (its signature its credential), and is not served where EventSub is off', async () => {
    const spec = (await kura.app.inject({ url: '/api/openapi.json' })).json();
    expect(Object.keys(spec.paths['/api/twitch/eventsub'].post.responses)).toEqual(expect.arrayContaining(['200', '204', '403']));
    const check = createAnswerChecker(spec);
    const answers = [
      await post(signedMessage('webhook_callback_verification', { challenge: 'c-1', subscription: subscriptionOf('1', 'x') }, secret)),
      await post(signedMessage('notification', online('alice'), secret)),
      await post(signedMessage('notification', online('alice'), 'forged-secret')),
      await post(signedMessage('notification', [1, 2], secret)),
      await post({ ...signedMessage('notification', online('alice'), secret), body: '{"not json' }),
    ];
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 204, 403, 400, 403]);
    for (const answer of answers) {
      const problems = check('/api/twitch/eventsub', 'post', {
        status: answer.statusCode,
        contentType: answer.headers['content-type'] as string,
        body: answer.body,
      });
      expect(problems, `${answer.statusCode} ${answer.body}`).toEqual([]);
    }
    // another type than JSON is refused before anything is read, as on every route
    const asText = signedMessage('notification', online('alice'), secret);
    expect((await post({ ...asText, headers: { ...asText.headers, 'content-type': 'text/plain' } })).statusCode).toBe(415);
    // a private instance's callback is open to Twitch: its signature is its credential
    const closed = await startTestApp({ publicUrl, publicRead: false }, { env });
    try {
      const message = signedMessage('webhook_callback_verification', { challenge: 'c-2', subscription: subscriptionOf('1', 'x') }, secret);
      const answer = await closed.app.inject({ method: 'POST', url: '/api/twitch/eventsub', headers: message.headers, payload: message.body });
      expect([answer.statusCode, answer.body]).toEqual([200, 'c-2']);
      const forged = signedMessage('notification', online('alice'), 'forged-secret');
      expect((await closed.app.inject({ method: 'POST', url: '/api/twitch/eventsub', headers: forged.headers, payload: forged.body })).statusCode).toBe(403);
    } finally {
      await closed.close();
    }
    const off = await startTestApp({}, { env: { ...env, KURA_TWITCH_EVENTSUB: 'off' } });
    try {
      expect(
        (await off.app.inject({ method: 'POST', url: '/api/twitch/eventsub', headers: { 'content-type': 'application/json' }, payload: '{}' })).statusCode,
      ).toBe(404);
    } finally {
      await off.close();
    }
  });
});

describe('subscribing followed channels (stand-in Twitch)', () => {
  it('subscribes each followed channel’s stream.online, verified through the real callback, and a new follow when it is made', async () => {
    await follow('alice');
    await follow('bob');
    const subscriber = createEventSubSubscriber(parseConfig(env), follows)!;
    const logs: string[] = [];
    const log = { info: (_: object, message: string) => logs.push(message), warn: (_: object, message: string) => logs.push(message) };
    stops.push(startTwitchEventSubLoop({ twitchEventSub: subscriber, log }, { feed: await followsFeed(), everySeconds: 3600 }, 0));
    const alice = await twitch.eventSub.subscribed('alice');
    await twitch.eventSub.subscribed('bob');
    expect(alice.body.transport.callback).toBe(`${publicUrl}/api/twitch/eventsub`);
    expect(alice.secret).toBe(secret);
    // a follow made later is subscribed at its notification; the others are not asked again
    await follow('carol');
    await twitch.eventSub.subscribed('carol');
    expect(twitch.requests.filter((r) => r.path === '/helix/eventsub/subscriptions').map((r) => r.status)).toEqual([202, 202, 202]);
    expect(twitch.eventSub.verifications).toEqual([
      { login: 'alice', ok: true },
      { login: 'bob', ok: true },
      { login: 'carol', ok: true },
    ]);
    // asked again (the hourly round), Twitch has it: 409, which is fine
    expect(await subscriber.subscribe('alice')).toBe('exists');
    // Kura's notification of alice going live arrives, signed with the secret it gave
    const { id } = (await follows.list()).find((f) => f.url === 'https://www.twitch.tv/alice')!;
    await dueLater(id);
    expect(await twitch.eventSub.sendOnline('alice', '41234567890')).toEqual({ status: 204, text: '' });
    expect((await nextCheckOf(id)).getTime()).toBeLessThanOrEqual(Date.now());
    expect((await twitch.eventSub.sendOnline('alice', '41234567890', { secret: 'forged-by-someone' })).status).toBe(403);
  });

  it('fails the verification of a subscription made with another secret (the callback refuses it), and Twitch drops it', async () => {
    await follow('alice');
    const other = parseConfig({ ...env, KURA_TWITCH_CLIENT_SECRET: twitch.clientSecret });
    const wrong = {
      ...other,
      follow: { ...other.follow, twitch: { ...other.follow.twitch!, eventSub: { ...other.follow.twitch!.eventSub!, secret: 'a-secret-kura-did-not-give' } } },
    };
    expect(await createEventSubSubscriber(wrong, follows)!.subscribe('alice')).toBe('created');
    await twitch.eventSub.verified(1);
    expect(twitch.eventSub.verifications).toEqual([{ login: 'alice', ok: false }]);
    expect(twitch.eventSub.subscriptions.size).toBe(0);
    // and Twitch refuses a callback that is not https on 443, as the real one does
    const strict = await startHelixStandIn();
    try {
      strict.users.set('alice', 'Alice');
      const app = {
        ...parseConfig(env),
        follow: { ...parseConfig(env).follow, twitch: { ...parseConfig(env).follow.twitch!, apiUrl: strict.apiUrl, authUrl: strict.authUrl } },
      };
      await expect(createEventSubSubscriber(app, follows)!.subscribe('alice')).rejects.toThrow(/answered 400 .*https on port 443/);
    } finally {
      await strict.close();
    }
  });
});
