import type { FastifyPluginAsync } from 'fastify';
import Type from 'typebox';
import { listQueue } from '../../core/list-queue.js';
import type { RouteContext } from '../context.js';
import { presentRecord } from '../livestreams/record.presenter.js';
import { LivestreamRecordSchema } from '../livestreams/record.schema.js';

/** `GET /api/queue`: upcoming and live records, soonest first. */
export function queueRoutes(context: RouteContext): FastifyPluginAsync {
  return async (app) => {
    app.get(
      '/queue',
      { schema: { operationId: 'listQueue', summary: 'Upcoming and live livestreams, soonest first', response: { 200: Type.Array(LivestreamRecordSchema) } } },
      async (_request, reply) => {
        const cached = await context.cache.through('queue', async () => {
          const records = await listQueue(context);
          return { body: reply.serialize(records.map((r) => presentRecord(r, context.publicUrl))) as string, headers: {} };
        });
        return reply.type('application/json; charset=utf-8').send(cached.body);
      },
    );
  };
}
