// Decisions: docs/decisions/0091-private-search-keys-per-caller.md, docs/decisions/0115-meilisearch.md
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AppError } from '../../core/errors.js';
import type { SearchAccess } from '../../core/search/search.js';
import { callerOf } from '../auth/guard.js';
import { problemResponses } from '../responses.schema.js';
import { CALLER_KEY_SECONDS, credentialOf, issueCallerKey } from './caller-search-key.js';
import { SearchAccessSchema } from './search-engine.schema.js';

/** How clients reach search: null when search is off (KURA_SEARCH=off). */
export type SearchAccessProvider = (() => Promise<SearchAccess>) | null;

/** What the search access route uses. */
export interface SearchRouteDeps {
  access: SearchAccessProvider;
  /**
   * A private instance with the built-in engine: each caller gets a key of its own, bound to the
   * session or API token it asked with and signed with the stored key (caller-search-key.ts).
   */
  keysPerCaller: boolean;
}

/**
 * `GET /api/search`: the engine URL, a search-only key and the index, for clients to query
 * directly; on a private instance with the built-in engine, a key that works only while the
 * caller's session or token does, for an hour at most.
 */
export function searchRoutes(deps: SearchRouteDeps): FastifyPluginAsyncTypebox {
  const { access, keysPerCaller } = deps;
  return async (app) => {
    app.get(
      '/search',
      { schema: { operationId: 'getSearchAccess', summary: 'Where and how to search', response: { 200: SearchAccessSchema, ...problemResponses } } },
      async (request, reply) => {
        if (access === null) return { enabled: false };
        let given: SearchAccess;
        try {
          given = await access();
        } catch (error) {
          request.log.warn({ err: error }, 'search engine unavailable');
          throw new AppError('unavailable', 'search_unavailable', 'The search engine cannot be reached; try again later.');
        }
        // the key can be rotated on the engine, or is the caller's own: let clients ask again rather than keep it
        reply.header('cache-control', 'no-cache');
        if (!keysPerCaller) return { enabled: true, ...given };
        const credential = credentialOf(request, callerOf(request));
        if (credential === null) throw new AppError('unauthorized', 'not_logged_in', 'Log in first (a session cookie or an Authorization: Bearer token).');
        const expiresAt = Math.floor(Date.now() / 1000) + CALLER_KEY_SECONDS;
        return { enabled: true, ...given, apiKey: issueCallerKey(given.apiKey, credential, expiresAt) };
      },
    );
  };
}
