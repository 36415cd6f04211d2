// Decisions: docs/decisions/0091-private-search-keys-per-caller.md, docs/decisions/0094-builtin-engine-as-meilisearch-bounded.md
import { setImmediate } from 'node:timers/promises';
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { SEARCH_INDEX, searchWarming, type SearchEngine } from '../../core/search/search.js';
import { AppError } from '../../core/errors.js';
import { asMeiliError, fromAppError, INVALID_KEY, invalidRequest, MeiliError, MISSING_KEY, sendMeiliError } from './meili-error.js';
import {
  HealthSchema,
  IndexSchema,
  MeiliErrorResponses as errors,
  MultiSearchBodySchema,
  MultiSearchResultSchema,
  SearchBodySchema,
  SearchQueryStringSchema,
  SearchResultSchema,
  VersionSchema,
} from './search-engine.schema.js';
import { sendCached, type ReadCache } from '../read-cache.js';
import { parseSearch, presentSearch } from './search-request.js';
import { limitEachClient, type ClientRate } from '../client-rate-limit.js';
import { readCallerKey } from './caller-search-key.js';
import type { Credential } from '../../core/accounts/authenticate.js';

/** What the built-in engine's routes use. */
export interface SearchEngineRouteDeps {
  engine: SearchEngine;
  /** The api process's read cache: answers are kept until the next change to records or documents. */
  cache: ReadCache;
  /** Answered by `/version`. */
  version: { pkgVersion: string; commitSha: string };
  /**
   * A private instance: keys are the callers' own (caller-search-key.ts), each accepted while
   * the session or API token it names still authenticates; null: the stored key itself.
   */
  callerKeys: { isLive(credential: Credential): Promise<boolean> } | null;
}

const tags = ['search engine'];
/** Searches one client may send (a page searching as its user types sends a few a second at most); each is counted once, a multi-search too. */
const SEARCH_RATE: ClientRate = { max: 300, windowSeconds: 60, what: 'search requests' };
/** Methods the catch-all refuses on every other path (writes and admin routes). */
const OTHER_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * `/api/search-engine`: the built-in engine as a read-only, Meilisearch-compatible endpoint.
 * Every route but `/health` wants the search key; every write or admin route answers 403.
 * Errors are in Meilisearch's format, so its clients read them.
 */
export function searchEngineRoutes(deps: SearchEngineRouteDeps): FastifyPluginAsync {
  return async (app) => {
    installMeiliErrors(app);
    await limitEachClient(app, SEARCH_RATE);
    app.addHook('onRequest', async (request) => {
      if (request.routeOptions.url?.endsWith('/health')) return;
      await authorise(request, await deps.engine.searchKey(), deps.callerKeys);
    });

    engineInfoRoutes(app, deps);
    searchRoutes(app, deps);
    refuseOtherRoutes(app);
  };
}

/** `/health` (no key needed), `/version` and the index's description. */
function engineInfoRoutes(app: FastifyInstance, deps: SearchEngineRouteDeps): void {
  app.get(
    '/health',
    {
      schema: {
        tags,
        operationId: 'getSearchEngineHealth',
        summary: 'Engine health (no key needed)',
        description: '503 `search_warming` (with Retry-After) while the index is being loaded, as searches answer meanwhile.',
        response: { 200: HealthSchema, ...errors },
      },
    },
    async () => {
      if (deps.engine.warming()) throw searchWarming();
      return { status: 'available' };
    },
  );
  app.get(
    '/version',
    { schema: { tags, operationId: 'getSearchEngineVersion', summary: 'Engine version', response: { 200: VersionSchema, ...errors } } },
    async () => ({
      ...deps.version,
      commitDate: 'unknown',
    }),
  );
  app.get<{ Params: { uid: string } }>(
    '/indexes/:uid',
    { schema: { tags, operationId: 'getSearchIndex', summary: 'The kura index', response: { 200: IndexSchema, ...errors } } },
    async (request) => {
      knownIndex(request.params.uid);
      return { uid: SEARCH_INDEX, primaryKey: 'id', createdAt: null, updatedAt: null, numberOfDocuments: await deps.engine.count() };
    },
  );
}

/** Searches: by query string, by body, and several at once; a single search is answered from the read cache. */
function searchRoutes(app: FastifyInstance, deps: SearchEngineRouteDeps): void {
  const search = async (uid: string, input: Record<string, unknown>, fromQueryString: boolean) => {
    const startedAt = performance.now();
    knownIndex(uid);
    const parsed = parseSearch(input, fromQueryString);
    const hits = await deps.engine.search(parsed.request);
    return presentSearch(parsed, hits, typeof input.q === 'string' ? input.q : '', startedAt);
  };
  const sendSearch = (request: FastifyRequest, reply: FastifyReply, uid: string, input: Record<string, unknown>, fromQueryString: boolean) =>
    sendCached(request, reply, { cache: deps.cache, dependsOn: ['search'] }, async () => ({ body: await search(uid, input, fromQueryString), headers: {} }));
  const searchSchema = { tags, response: { 200: SearchResultSchema, ...errors } };
  app.get<{ Params: { uid: string }; Querystring: Record<string, unknown> }>(
    '/indexes/:uid/search',
    { schema: { ...searchSchema, operationId: 'searchByQueryString', summary: 'Search (query string)', querystring: SearchQueryStringSchema } },
    async (request, reply) => sendSearch(request, reply, request.params.uid, request.query, true),
  );
  app.post<{ Params: { uid: string }; Body: Record<string, unknown> }>(
    '/indexes/:uid/search',
    { config: { readsOnly: true }, schema: { ...searchSchema, operationId: 'search', summary: 'Search', body: SearchBodySchema } },
    async (request, reply) => sendSearch(request, reply, request.params.uid, request.body ?? {}, false),
  );
  app.post<{ Body: { queries: Array<Record<string, unknown>>; federation?: unknown } }>(
    '/multi-search',
    {
      config: { readsOnly: true },
      schema: {
        tags,
        operationId: 'multiSearch',
        summary: 'Several searches at once',
        body: MultiSearchBodySchema,
        response: { 200: MultiSearchResultSchema, ...errors },
      },
    },
    async (request, reply) => {
      if (request.body.federation !== undefined && request.body.federation !== null) {
        throw invalidRequest('invalid_multi_search_federation', 'Federated multi-search is not supported by this engine.');
      }
      const results: string[] = [];
      for (const [i, query] of request.body.queries.entries()) {
        // each query in a turn of its own: other requests (a /healthz, a page) are answered between
        // the queries of many clients' multi-searches, not after all of them (issue 49)
        if (i > 0) await setImmediate();
        const { indexUid, ...rest } = query;
        try {
          results.push(`{"indexUid":${JSON.stringify(indexUid)},${(await search(String(indexUid), rest, false)).slice(1)}`);
        } catch (thrown) {
          const error = thrown instanceof AppError ? fromAppError(thrown) : thrown;
          if (error instanceof MeiliError) error.message = `Inside \`.queries[${i}]\`: ${error.message}`;
          throw error;
        }
      }
      return reply.type('application/json; charset=utf-8').send(`{"results":[${results.join(',')}]}`);
    },
  );
}

/** The catch-all: any other method and path is refused with `invalid_api_key`, as Meilisearch refuses a search key there. */
function refuseOtherRoutes(app: FastifyInstance): void {
  // every other route (documents, settings, keys, tasks, indexes...) needs more than a search key
  app.route({
    method: [...OTHER_METHODS],
    url: '/*',
    schema: { hide: true },
    // before any body is read: a refused write is refused whatever it carries
    onRequest: async () => {
      throw INVALID_KEY();
    },
    handler: async () => {
      throw INVALID_KEY();
    },
  });
}

function knownIndex(uid: string): void {
  if (uid !== SEARCH_INDEX) throw new MeiliError(404, 'index_not_found', 'invalid_request', `Index \`${uid}\` not found.`);
}

async function authorise(request: FastifyRequest, key: string, callerKeys: SearchEngineRouteDeps['callerKeys']): Promise<void> {
  const header = request.headers.authorization;
  if (header === undefined || header.trim() === '') throw MISSING_KEY();
  const presented = header.replace(/^Bearer\s+/i, '').trim();
  if (callerKeys !== null) {
    const credential = readCallerKey(key, presented, Math.floor(Date.now() / 1000));
    if (credential === null || !(await callerKeys.isLive(credential))) throw INVALID_KEY();
    return;
  }
  const given = Buffer.from(presented);
  const wanted = Buffer.from(key);
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) throw INVALID_KEY();
}

/** This plugin's errors in Meilisearch's format: its own, malformed bodies, schema violations. */
function installMeiliErrors(app: FastifyInstance): void {
  app.setErrorHandler((error: Error, request, reply) => {
    const meili = asMeiliError(error);
    // a 503 is an answer (the index loading, the queue full, the database away: each said where it happens), not a fault
    if (meili.status >= 500 && meili.status !== 503) request.log.error({ err: error }, 'search engine request failed');
    return sendMeiliError(reply, meili);
  });
}
