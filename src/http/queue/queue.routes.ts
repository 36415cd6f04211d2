import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listQueue } from '../../core/livestream/list-queue.js';
import type { RouteContext } from '../context.js';
import { presentRecord } from '../livestreams/record.presenter.js';
import { sendCached } from '../read-cache.js';
import { problemResponses } from '../responses.schema.js';
import { QueueQuerySchema, QueueResponseSchema } from './queue.schema.js';

/** `GET /api/queue`: upcoming and live records, soonest first; of one channel with channelId. */
export function queueRoutes(context: RouteContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/queue',
      {
        schema: {
          operationId: 'listQueue',
          summary: 'Upcoming and live livestreams, soonest first; of one channel with channelId',
          querystring: QueueQuerySchema,
          response: { 200: QueueResponseSchema, ...problemResponses },
        },
      },
      async (request, reply) => {
        const channelId = request.query.channelId ?? null;
        return sendCached(reply, context.cache, `queue:${channelId ?? ''}`, async () => {
          const records = await listQueue(context, channelId);
          return { body: reply.serialize(records.map((r) => presentRecord(r, context.publicUrl))) as string, headers: {} };
        });
      },
    );
  };
}
