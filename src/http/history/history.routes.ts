import type { FastifyPluginAsync } from 'fastify';
import type { Static } from 'typebox';
import { listHistory } from '../../core/list-history.js';
import type { RouteContext } from '../context.js';
import { presentRecord } from '../livestreams/record.presenter.js';
import { HistoryQuerySchema, HistoryResponseSchema, PAGINATION_HEADERS } from './history.schema.js';

/** `GET /api/history`: the archive, page by page, with pagination headers. */
export function historyRoutes(context: RouteContext): FastifyPluginAsync {
  return async (app) => {
    app.get<{ Querystring: Static<typeof HistoryQuerySchema> }>(
      '/history',
      {
        schema: {
          summary: 'Archived livestreams, paginated',
          querystring: HistoryQuerySchema,
          response: { 200: HistoryResponseSchema },
        },
      },
      async (request, reply) => {
        const query = {
          page: request.query.page,
          limit: request.query.limit,
          sort: request.query.sort.toLowerCase() as 'asc' | 'desc',
          unfinished: request.query.unfinished === 'true' || request.query.unfinished === '1',
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
