// Decisions: docs/decisions/0135-twitch-follows-through-helix.md
import { setTimeout as sleep } from 'node:timers/promises';
import type { IncomingHttpHeaders } from 'node:http';
import type { TwitchApp } from '../../config/follow.js';
import type { OutboundClient } from '../outbound/outbound-client.js';
import { helixRateLimit, waitForBudget, type RateLimitState } from './helix-rate-limit.js';

/** A live stream as Helix's `GET /streams` lists it (the fields Kura reads). */
export interface HelixStream {
  /** The stream's id: yt-dlp's id of the same broadcast (twitch.py reads it from Twitch's GraphQL `stream.id`). */
  id: string;
  login: string;
  displayName: string;
  title: string;
  /** `live` (Helix's only type today; `""` on Twitch's errors). */
  type: string;
}

export interface HelixClient {
  /** The channels among `logins` that are live now (any number of logins: a hundred a request). */
  liveStreams(logins: readonly string[]): Promise<HelixStream[]>;
  /** A channel by its login; null when Twitch has none of that name. */
  user(login: string): Promise<{ id: string; login: string; displayName: string } | null>;
  /**
   * Asks Twitch to post `stream.online` of this broadcaster (its user id) to `callback`, signed with
   * `secret` (decision 0138): `created`, or `exists` when Twitch has that subscription already (409).
   */
  subscribeOnline(broadcasterId: string, callback: string, secret: string): Promise<'created' | 'exists'>;
}

/** Helix takes at most this many `user_login`s a request. */
export const LOGINS_PER_REQUEST = 100;
/** A token is renewed once this share of its life has passed, never at its last second. */
const RENEW_AT_SHARE = 0.9;
const MAX_BODY_CHARS = 1_000_000;

interface Token {
  value: string;
  renewAt: number;
}

/**
 * Twitch's API as an application (decision 0135): an app access token from the client
 * credentials grant, kept and renewed before it expires (and at once when Helix answers 401: it
 * was revoked, or expired early); each request waits while Twitch's rate-limit headers say the
 * budget is spent, and a 429 is waited out once. Errors name what Twitch said and what to do.
 */
export function createHelixClient(
  app: Omit<TwitchApp, 'eventSub'>,
  deps: { outbound: OutboundClient; now?: () => number; sleep?: (ms: number) => Promise<unknown> },
): HelixClient {
  const now = deps.now ?? Date.now;
  const wait = deps.sleep ?? sleep;
  const budget: RateLimitState = { remaining: null, resetAt: 0 };
  let token: Token | null = null;
  let granting: Promise<Token> | null = null;

  const grant = async (): Promise<Token> => {
    const body = new URLSearchParams({ client_id: app.clientId, client_secret: app.clientSecret, grant_type: 'client_credentials' }).toString();
    const asked = now();
    const answer = await call(`${app.authUrl}/token`, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    if (answer.status !== 200) {
      throw new Error(`Twitch refused the application's credentials (KURA_TWITCH_CLIENT_ID, KURA_TWITCH_CLIENT_SECRET): ${said(answer)}`);
    }
    const { access_token: value, expires_in: seconds } = answer.json as { access_token?: unknown; expires_in?: unknown };
    if (typeof value !== 'string' || typeof seconds !== 'number')
      throw new Error('Twitch granted no app access token (its answer had no access_token and expires_in)');
    return { value, renewAt: asked + seconds * 1000 * RENEW_AT_SHARE };
  };
  const currentToken = async (): Promise<Token> => {
    if (token !== null && now() < token.renewAt) return token;
    granting ??= grant().finally(() => (granting = null));
    token = await granting;
    return token;
  };

  const call = async (url: string, request: { method?: 'GET' | 'POST'; body?: string; headers: Record<string, string> }) => {
    const response = await deps.outbound.send(url, request);
    const text = await response.body.text();
    if (text.length > MAX_BODY_CHARS) throw new Error(`${new URL(url).host} answered more than ${MAX_BODY_CHARS} characters`);
    return { status: response.statusCode, headers: response.headers, json: parseJson(text) };
  };

  /** A Helix request (a JSON body: a POST), answered 2xx or as `accepted` says; else it throws, saying what Twitch said. */
  const ask = async (path: string, query: URLSearchParams, json?: unknown, accepted: readonly number[] = []): Promise<{ status: number; json: unknown }> => {
    for (let attempt = 1; ; attempt++) {
      await waitForBudget(budget, now, wait);
      const { value } = await currentToken();
      const headers: Record<string, string> = { 'client-id': app.clientId, authorization: `Bearer ${value}` };
      const answer = await call(
        `${app.apiUrl}${path}${query.size > 0 ? `?${query.toString()}` : ''}`,
        json === undefined ? { headers } : { method: 'POST', body: JSON.stringify(json), headers: { ...headers, 'content-type': 'application/json' } },
      );
      Object.assign(budget, helixRateLimit(answer.headers, answer.status, now()));
      if ((answer.status >= 200 && answer.status < 300) || accepted.includes(answer.status)) return answer;
      if (answer.status === 401 && attempt === 1) {
        token = null; // revoked or expired before its time: a new one, once
        continue;
      }
      if (answer.status === 429 && attempt === 1) continue; // the budget is spent: waitForBudget waits for its reset
      throw new Error(`Twitch's API answered ${answer.status} to ${path}: ${said(answer)}${answer.status === 401 ? ' (a new app token was refused too)' : ''}`);
    }
  };

  return {
    async liveStreams(logins) {
      const live: HelixStream[] = [];
      for (let from = 0; from < logins.length; from += LOGINS_PER_REQUEST) {
        const query = new URLSearchParams({ first: String(LOGINS_PER_REQUEST), type: 'live' });
        for (const login of logins.slice(from, from + LOGINS_PER_REQUEST)) query.append('user_login', login);
        live.push(...readStreams((await ask('/streams', query)).json));
      }
      return live;
    },
    async user(login) {
      const data = listOf((await ask('/users', new URLSearchParams({ login }))).json);
      const [found] = data as Array<{ id?: unknown; login?: unknown; display_name?: unknown }>;
      if (found === undefined || typeof found.login !== 'string' || typeof found.id !== 'string') return null;
      const displayName = typeof found.display_name === 'string' && found.display_name !== '' ? found.display_name : found.login;
      return { id: found.id, login: found.login, displayName };
    },
    async subscribeOnline(broadcasterId, callback, secret) {
      const answer = await ask('/eventsub/subscriptions', new URLSearchParams(), onlineSubscription(broadcasterId, callback, secret), [409]);
      return answer.status === 409 ? 'exists' : 'created';
    },
  };
}

/** A webhook subscription to a broadcaster's `stream.online` (Twitch's reference, "Create EventSub Subscription"). */
function onlineSubscription(broadcasterId: string, callback: string, secret: string) {
  return { type: 'stream.online', version: '1', condition: { broadcaster_user_id: broadcasterId }, transport: { method: 'webhook', callback, secret } };
}

function readStreams(body: unknown): HelixStream[] {
  return (listOf(body) as Array<Record<string, unknown>>).flatMap((stream) => {
    const { id, user_login: login, user_name: displayName, title, type } = stream;
    if (typeof id !== 'string' || typeof login !== 'string') return [];
    return [
      {
        id,
        login: login.toLowerCase(),
        displayName: typeof displayName === 'string' && displayName !== '' ? displayName : login,
        title: typeof title === 'string' ? title : '',
        type: typeof type === 'string' ? type : '',
      },
    ];
  });
}

function listOf(body: unknown): unknown[] {
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) throw new Error('Twitch’s API answered something other than a list (no "data")');
  return data;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** What Twitch said of a refusal: its `message` (Helix and the token endpoint both send one), else the status alone. */
function said(answer: { status: number; json: unknown; headers: IncomingHttpHeaders }): string {
  const message = (answer.json as { message?: unknown } | null)?.message;
  return typeof message === 'string' && message !== '' ? `${message} (HTTP ${answer.status})` : `HTTP ${answer.status}`;
}
