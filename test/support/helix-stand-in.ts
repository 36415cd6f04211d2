import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventSubStandIn, type EventSubStandIn } from './eventsub-stand-in.js';

// A STAND-IN for Twitch's API (no real Twitch is reachable here), as hard as the real one:
// - the client credentials grant (dev.twitch.tv/docs/authentication/getting-tokens-oauth, "Client
//   credentials grant flow"): POST /oauth2/token with client_id, client_secret and
//   grant_type=client_credentials → {access_token, expires_in, token_type: "bearer"}; a wrong
//   client id is 400 "invalid client", a wrong secret 403 "invalid client secret";
// - GET /helix/streams (reference, "Get Streams"): `user_login` up to 100 times, `type=live`,
//   `first` ≤ 100; more than 100 logins is 400; offline channels are simply not listed; each entry
//   as Twitch sends it (id, user_id, user_login, user_name, type, title, started_at, …);
// - GET /helix/users?login= (reference, "Get Users");
// - every Helix answer needs `Client-Id` and a live `Authorization: Bearer` token: 401
//   {"error":"Unauthorized","status":401,"message":"Invalid OAuth token"} otherwise (an expired or
//   revoked token);
// - the token bucket (API guide, "Rate limits"): `Ratelimit-Limit`, `Ratelimit-Remaining`,
//   `Ratelimit-Reset` (Unix seconds) on every Helix answer; a request with the bucket empty is 429;
// - EventSub's subscriptions, their verification and `stream.online` notifications
//   (test/support/eventsub-stand-in.ts).

export interface HelixStandInOptions {
  clientId?: string;
  clientSecret?: string;
  /** Seconds a granted token lives (`expires_in`); Twitch's are about 60 days. */
  tokenSeconds?: number;
  /** Points in the bucket, refilled whole every `windowMs` (Twitch: 800 a minute). */
  bucket?: { limit: number; windowMs: number };
  /** The stand-in's clock (a test moves it and Kura's together). */
  now?: () => number;
  /**
   * Whether an EventSub callback must be https on port 443, as Twitch requires (default true). A
   * test of Kura listening on http://127.0.0.1 turns it off: the one rule of Twitch's not kept.
   */
  requireHttpsCallback?: boolean;
}

export interface LiveChannel {
  streamId: string;
  title: string;
  displayName?: string;
}

export interface HelixStandIn {
  /** The base URLs to give Kura: KURA_TWITCH_API_URL, KURA_TWITCH_AUTH_URL. */
  apiUrl: string;
  authUrl: string;
  clientId: string;
  clientSecret: string;
  /** Channels that exist (login → display name); a live one must exist too. */
  users: Map<string, string>;
  /** Channels live now, by login. */
  live: Map<string, LiveChannel>;
  /** Every request, in order: its path and the logins it asked about. */
  requests: Array<{ path: string; logins: string[]; status: number }>;
  /** Resolves once `path` (`/helix/streams`) has been asked `count` times in all. */
  asked(path: string, count: number): Promise<void>;
  /** Tokens granted so far. */
  grants(): number;
  /** Every token granted so far stops working (Twitch revoked them). */
  revokeTokens(): void;
  /** Spends what is left of the bucket (another client of the same application used it). */
  spendBucket(): void;
  /** EventSub: the subscriptions made, their verifications, and notifications sent. */
  eventSub: EventSubStandIn;
  close(): Promise<void>;
}

export async function startHelixStandIn(options: HelixStandInOptions = {}): Promise<HelixStandIn> {
  const clientId = options.clientId ?? 'kura-test-client';
  const clientSecret = options.clientSecret ?? 'kura-test-secret';
  const bucket = options.bucket ?? { limit: 800, windowMs: 60_000 };
  const now = options.now ?? Date.now;
  const tokens = new Map<string, number>(); // token → expires at (ms)
  let granted = 0;
  let points = bucket.limit;
  let resetAt = now() + bucket.windowMs;
  const users = new Map<string, string>();
  const live = new Map<string, LiveChannel>();
  const requests: HelixStandIn['requests'] = [];
  const waiting = new Set<() => void>();
  const eventSub = eventSubStandIn(users, idOf, { requireHttps: options.requireHttpsCallback ?? true });

  const send = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify(body));
  };
  const token = async (request: IncomingMessage, response: ServerResponse) => {
    const form = new URLSearchParams(await bodyOf(request));
    if (form.get('grant_type') !== 'client_credentials') return send(response, 400, { status: 400, message: 'unsupported grant type' });
    if (form.get('client_id') !== clientId) return send(response, 400, { status: 400, message: 'invalid client' });
    if (form.get('client_secret') !== clientSecret) return send(response, 403, { status: 403, message: 'invalid client secret' });
    granted += 1;
    const value = `app-token-${granted}`;
    const seconds = options.tokenSeconds ?? 5_184_000;
    tokens.set(value, now() + seconds * 1000);
    send(response, 200, { access_token: value, expires_in: seconds, token_type: 'bearer' });
  };
  const helix = async (url: URL, request: IncomingMessage, response: ServerResponse) => {
    const raw = request.method === 'POST' ? await bodyOf(request) : '';
    const logins = url.searchParams.getAll(url.pathname === '/helix/users' ? 'login' : 'user_login').map((login) => login.toLowerCase());
    const answer = (status: number, body: unknown) => {
      requests.push({ path: url.pathname, logins, status });
      for (const check of waiting) check();
      send(response, status, body, {
        'ratelimit-limit': String(bucket.limit),
        'ratelimit-remaining': String(points),
        'ratelimit-reset': String(Math.ceil(resetAt / 1000)),
      });
    };
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    const expiresAt = bearer === undefined ? undefined : tokens.get(bearer);
    if (request.headers['client-id'] !== clientId || expiresAt === undefined || expiresAt <= now()) {
      return answer(401, { error: 'Unauthorized', status: 401, message: 'Invalid OAuth token' });
    }
    if (now() >= resetAt) [points, resetAt] = [bucket.limit, now() + bucket.windowMs];
    if (points === 0) return answer(429, { error: 'Too Many Requests', status: 429, message: '' });
    points -= 1;
    if (logins.length > 100) {
      return answer(400, {
        error: 'Bad Request',
        status: 400,
        message: 'The parameter "user_login" was malformed: the value must be less than or equal to 100',
      });
    }
    if (url.pathname === '/helix/eventsub/subscriptions') {
      const created = eventSub.create(raw);
      return answer(created.status, created.body);
    }
    if (url.pathname === '/helix/users') {
      const found = logins.filter((login) => users.has(login));
      return answer(200, { data: found.map((login) => ({ id: idOf(login), login, display_name: users.get(login), type: '', broadcaster_type: '' })) });
    }
    const streams = logins.flatMap((login) => {
      const stream = live.get(login);
      if (stream === undefined || !users.has(login)) return [];
      return [
        {
          id: stream.streamId,
          user_id: idOf(login),
          user_login: login,
          user_name: stream.displayName ?? users.get(login),
          game_id: '509658',
          game_name: 'Just Chatting',
          type: 'live',
          title: stream.title,
          viewer_count: 42,
          started_at: new Date().toISOString(),
          language: 'ja',
          thumbnail_url: `https://static-cdn.jtvnw.net/previews-ttv/live_user_${login}-{width}x{height}.jpg`,
          tags: [],
          is_mature: false,
        },
      ];
    });
    answer(200, { data: streams, pagination: {} });
  };

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://stand-in');
    if (request.method === 'POST' && url.pathname === '/oauth2/token') return void token(request, response);
    if (request.method === 'GET' && (url.pathname === '/helix/streams' || url.pathname === '/helix/users')) return void helix(url, request, response);
    if (request.method === 'POST' && url.pathname === '/helix/eventsub/subscriptions') return void helix(url, request, response);
    send(response, 404, { error: 'Not Found', status: 404, message: '' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    apiUrl: `${base}/helix`,
    authUrl: `${base}/oauth2`,
    clientId,
    clientSecret,
    users,
    live,
    requests,
    grants: () => granted,
    asked: (path, count) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (requests.filter((request) => request.path === path).length < count) return;
          waiting.delete(check);
          resolve();
        };
        waiting.add(check);
        check();
      }),
    revokeTokens: () => tokens.clear(),
    spendBucket: () => void (points = 0),
    eventSub: eventSub.standIn,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A user id as Twitch gives one: digits, the same for a login every time. */
function idOf(login: string): string {
  let id = 7;
  for (const char of login) id = (id * 31 + char.charCodeAt(0)) % 1_000_000_007;
  return String(id);
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
