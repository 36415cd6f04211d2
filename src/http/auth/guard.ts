// Decisions: docs/decisions/0014-same-origin-and-authorization-first.md
import type { FastifyReply, FastifyRequest } from 'fastify';
import { requireAdmin as refuseUnlessAdmin, type Caller } from '../../core/accounts/account.js';
import { authenticate } from '../../core/accounts/authenticate.js';
import { AppError } from '../../core/errors.js';
import type { AccountDeps, AccountSettings } from './account-deps.js';
import { SESSION_COOKIE, setSessionCookie } from './cookies.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A method that changes nothing (RFC 9110 §9.2.1). */
export const isSafeMethod = (method: string): boolean => SAFE_METHODS.has(method);

/**
 * Whether a browser request comes from the instance's own pages: its `Origin` is the public
 * origin, or (without Origin) `Sec-Fetch-Site` says same-origin. A request with neither is not
 * trusted with a cookie: every browser in use sends one of them on a POST.
 */
export function isSameOrigin(request: FastifyRequest, publicOrigin: string): boolean {
  const origin = request.headers.origin;
  if (origin !== undefined) return origin === publicOrigin;
  const site = request.headers['sec-fetch-site'];
  return site === 'same-origin';
}

/** Refuses a login, setup or logout that another site's page sent (login CSRF); scripts without Origin or Sec-Fetch-Site pass. */
export function refuseCrossSiteLogin(request: FastifyRequest, publicOrigin: string): void {
  const fromBrowser = request.headers.origin !== undefined || request.headers['sec-fetch-site'] !== undefined;
  if (fromBrowser && !isSameOrigin(request, publicOrigin)) {
    throw new AppError('forbidden', 'cross_origin_refused', `Log in and out from ${publicOrigin} itself.`);
  }
}

/** The token of an `Authorization: Bearer` header, if the request carries one. */
export function bearerToken(request: FastifyRequest): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  return match?.[1];
}

/** What the guard reads callers from: sessions, API tokens, who is admin, and the instance's own origin. */
export interface GuardDeps extends Pick<AccountDeps, 'sessions' | 'apiTokens'> {
  settings: Pick<AccountSettings, 'admins'>;
  publicUrl: string;
}

/** Resolves callers from a bearer token or the session cookie; refuses cookie-borne cross-origin state changes. */
export function createGuard(deps: GuardDeps) {
  const { publicUrl } = deps;
  const publicOrigin = new URL(publicUrl).origin;

  /** The caller, or null when the request carries no valid credentials. */
  const optional = async (request: FastifyRequest, reply: FastifyReply): Promise<Caller | null> => {
    // resolved once a request: a private instance's gate looked already, before the route's own hook
    if (request.caller !== null) return request.caller;
    const found = await authenticate(deps, {
      bearerToken: bearerToken(request),
      sessionToken: request.cookies[SESSION_COOKIE],
      admins: deps.settings.admins,
    });
    if (found === null) return null;
    if (found.caller.via === 'session' && !isSafeMethod(request.method) && !isSameOrigin(request, publicOrigin)) {
      throw new AppError(
        'forbidden',
        'cross_origin_refused',
        `A request that changes something and is authenticated by cookie must come from ${publicOrigin}; scripts use a bearer token.`,
      );
    }
    if (found.sessionRefreshed) setSessionCookie(reply, publicUrl, request.cookies[SESSION_COOKIE] as string);
    request.caller = found.caller;
    return found.caller;
  };

  /** The caller; `not_logged_in` (401) without valid credentials, `cross_origin_refused` (403) for CSRF. */
  const required = async (request: FastifyRequest, reply: FastifyReply): Promise<Caller> => {
    const caller = await optional(request, reply);
    if (caller === null) throw new AppError('unauthorized', 'not_logged_in', 'Log in first (a session cookie or an Authorization: Bearer token).');
    return caller;
  };

  /**
   * An `onRequest` hook of every route that needs a login: the caller is resolved before the body
   * is read or judged, so a stranger gets 401 whatever it sent, never 400. Handlers read it with `callerOf`.
   */
  const requireCaller = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    await required(request, reply);
  };

  /** An `onRequest` hook of every admin route: as `requireCaller`, then `admin_only` (403) for anyone else. */
  const requireAdmin = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    refuseUnlessAdmin(await required(request, reply));
  };

  return { optional, requireCaller, requireAdmin, publicOrigin };
}

/** The hooks and lookups a route uses to know its caller (see createGuard). */
export type Guard = ReturnType<typeof createGuard>;

/** The caller `requireCaller` resolved for this request. */
export function callerOf(request: FastifyRequest): Caller {
  if (request.caller === null) throw new AppError('unauthorized', 'not_logged_in', 'Log in first (a session cookie or an Authorization: Bearer token).');
  return request.caller;
}
