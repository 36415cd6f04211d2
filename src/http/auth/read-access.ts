// Decisions: docs/decisions/0080-private-instances.md
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isFeedToken } from '../../core/accounts/authenticate.js';
import { AppError } from '../../core/errors.js';
import type { AccountDeps } from './account-deps.js';
import type { Guard } from './guard.js';

/**
 * Who may reach a route on a private instance (KURA_PUBLIC_READ=false): unmarked routes want a
 * session or an API token; `open` routes anyone (what a login needs, health); `feed` routes also
 * a feed token in the URL; `own-key` routes judge their own credentials (the search engine's key).
 */
export type RouteAccess = 'open' | 'feed' | 'own-key';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may reach the route on a private instance; unset: a logged-in caller. */
    access?: RouteAccess;
  }
}

/** The query parameter a feed token comes in (a feed reader or a video player sends no header). */
export const FEED_TOKEN_PARAMETER = 'feed_token';

/** Marks every route registered in `app` (and the plugins it registers afterwards) with `access`. */
export function markAccess(app: FastifyInstance, access: RouteAccess): void {
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, access };
  });
}

/** The feed token of a request's URL, as sent (before any validation). */
export function feedTokenOf(request: FastifyRequest): string | undefined {
  const value = (request.query as Record<string, unknown> | undefined)?.[FEED_TOKEN_PARAMETER];
  return typeof value === 'string' ? value : undefined;
}

/** What the private instance's gate uses: the guard for sessions and API tokens, and the feed tokens. */
export interface ReadAccessDeps extends Pick<AccountDeps, 'feedTokens'> {
  guard: Pick<Guard, 'optional'>;
}

/**
 * Closes a private instance: an `onRequest` hook of every route, so a stranger is answered
 * `not_logged_in` (401) before anything is read or validated, whatever route was added later.
 * A path no route answers stays 404 (it names nothing), and OPTIONS passes: a CORS preflight
 * never carries credentials, and it says only which methods a path allows.
 */
export function installReadAccess(app: FastifyInstance, deps: ReadAccessDeps): void {
  app.addHook('onRequest', async (request, reply) => {
    if (request.is404 || request.method === 'OPTIONS') return;
    const access = request.routeOptions.config?.access;
    if (access === 'open' || access === 'own-key') return;
    const feedToken = access === 'feed' ? feedTokenOf(request) : undefined;
    if (feedToken !== undefined) {
      if (await isFeedToken(deps, feedToken)) return;
      throw new AppError(
        'unauthorized',
        'feed_token_invalid',
        'This feed token is not valid (it may have been rotated): copy the feed URL again from your account page.',
      );
    }
    if ((await deps.guard.optional(request, reply)) !== null) return;
    throw new AppError(
      'unauthorized',
      'not_logged_in',
      'This instance is private: log in first (a session cookie or an Authorization: Bearer token; feeds and downloads also take a feed token).',
    );
  });
}
