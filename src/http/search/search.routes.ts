// Decisions: docs/decisions/0051-meilisearch.md
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AppError } from '../../core/errors.js';
import type { SearchAccess } from '../../core/search/search.js';
import { problemResponses } from '../responses.schema.js';
import { SearchAccessSchema } from './search-engine.schema.js';

/** How clients reach search: null when search is off (KURA_SEARCH=off). */
export type SearchAccessProvider = (() => Promise<SearchAccess>) | null;

/** What the search access route uses. */
export interface SearchRouteDeps {
  access: SearchAccessProvider;
}

/** `GET /api/search`: the engine URL, a search-only key and the index, for clients to query directly. */
export function searchRoutes(deps: SearchRouteDeps): FastifyPluginAsyncTypebox {
  const { access } = deps;
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
        // the key can be rotated on the engine: let clients ask again rather than keep it
        reply.header('cache-control', 'no-cache');
        return { enabled: true, ...given };
      },
    );
  };
}
