import type { FastifyPluginAsync } from 'fastify';
import type { Static } from 'typebox';
import { HISTORY_DEFAULT_LIMIT, listHistory } from '../../core/list-history.js';
import type { RouteContext } from '../context.js';
import { problemResponses } from '../problem.js';
import { presentRecord } from '../livestreams/record.presenter.js';
import { HistoryQuerySchema, HistoryResponseSchema, PAGINATION_HEADERS } from './history.schema.js';

/** `GET /api/history`: the archive, page by page, with pagination headers. */
export function historyRoutes(context: RouteContext): FastifyPluginAsync {
  return async (app) => {
    app.get<{ Querystring: Static<typeof HistoryQuerySchema> }>(
      '/history',
      {
        schema: {
          operationId: 'listHistory', summary: 'Archived livestreams, paginated',
          querystring: HistoryQuerySchema,
          response: { 200: HistoryResponseSchema, ...problemResponses },
        },
      },
      async (request, reply) => {
        const { page = 0, limit = HISTORY_DEFAULT_LIMIT, sort = 'desc', unfinished = 'false' } = request.query;
        const query = {
          page,
          limit,
          sort: sort.toLowerCase() as 'asc' | 'desc',
          unfinished: unfinished === 'true' || unfinished === '1',
        };
        const key = `history:${query.page}:${query.limit}:${query.sort}:${query.unfinished}`;
        const cached = await context.cache.through(key, async () => {
          const page = await listHistory(context, query);
          return {
            body: reply.serialize(page.records.map((r) => presentRecord(r, context.publicUrl))) as string,
            headers: { [PAGINATION_HEADERS.total]: String(page.total), [PAGINATION_HEADERS.hasMore]: String(page.hasMore) },
          };
        });
        return reply.headers(cached.headers).type('application/json; charset=utf-8').send(cached.body);
      },
    );
  };
}
