import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { listQueue } from '../../core/livestream/list-queue.js';
import type { RouteContext } from '../context.js';
import { presentRecord } from '../livestreams/record.presenter.js';
import { LivestreamRecordSchema } from '../livestreams/record.schema.js';
import { sendCached } from '../read-cache.js';

/** `GET /api/queue`: upcoming and live records, soonest first. */
export function queueRoutes(context: RouteContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/queue',
      { schema: { operationId: 'listQueue', summary: 'Upcoming and live livestreams, soonest first', response: { 200: Type.Array(LivestreamRecordSchema) } } },
      async (_request, reply) =>
        sendCached(reply, context.cache, 'queue', async () => {
          const records = await listQueue(context);
          return { body: reply.serialize(records.map((r) => presentRecord(r, context.publicUrl))) as string, headers: {} };
        }),
    );
  };
}
