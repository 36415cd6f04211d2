import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listHistory } from '../../core/records/list-history.js';
import { audienceOf } from '../auth/audience.js';
import type { Guard } from '../auth/guard.js';
import { problemResponses } from '../responses.schema.js';
import { presentRecord } from '../livestreams/record.presenter.js';
import { HistoryQuerySchema, HistoryResponseSchema, toHistoryRequest } from './history.schema.js';
import { paginatedResponse, paginationHeaders, type PaginationOptions } from '../pagination.js';
import type { LivestreamRepo } from '../../core/records/ports.js';
import { sendCached, type ReadCache } from '../read-cache.js';

/** What the history route uses. */
export interface HistoryRouteDeps {
  livestreams: LivestreamRepo;
  cache: ReadCache;
  publicUrl: string;
  guard: Pick<Guard, 'optional'>;
  pagination: PaginationOptions;
}

/** `GET /api/history`: the archive, page by page, with pagination headers (source URLs whole for the admin, redacted for anyone else). */
export function historyRoutes(deps: HistoryRouteDeps): FastifyPluginAsyncTypebox {
  const { guard } = deps;
  return async (app) => {
    app.get(
      '/history',
      {
        schema: {
          operationId: 'listHistory',
          summary: 'Archived livestreams, paginated; of one channel with channelId',
          querystring: HistoryQuerySchema,
          response: { 200: paginatedResponse(HistoryResponseSchema, 'A page of records', deps.pagination), ...problemResponses },
        },
      },
      async (request, reply) => {
        const audience = await audienceOf(guard, request, reply);
        return sendCached(
          request,
          reply,
          { cache: deps.cache, dependsOn: ['records'], atTheDoor: true },
          async () => {
            const page = await listHistory(deps, toHistoryRequest(request.query));
            return {
              body: reply.serialize(page.records.map((r) => presentRecord(r, deps.publicUrl, audience))) as string,
              headers: paginationHeaders(page, deps.pagination),
            };
          },
          { audience },
        );
      },
    );
  };
}
