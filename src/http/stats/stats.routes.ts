import type { FastifyPluginAsync } from 'fastify';
import Type from 'typebox';
import { getStats } from '../../core/get-stats.js';
import type { RouteContext } from '../context.js';

const StatsSchema = Type.Object({
  videoAmount: Type.Integer({ description: 'archived and queued livestreams (failed excluded)' }),
  totalFileSize: Type.Integer({ description: 'bytes' }),
  totalLength: Type.Integer({ description: 'seconds' }),
  storageBillPerMonth: Type.Number({ description: 'USD: totalFileSize / 10^9 × usdPerGbPerMonth' }),
  s3BillPerMonth: Type.Number({ description: 'same as storageBillPerMonth, for clients of the original interface' }),
  usdPerGbPerMonth: Type.Number(),
  uniqueChannels: Type.Integer({ description: 'channels with at least one archived or queued livestream' }),
});

/** `GET /api/stats`: instance totals from maintained aggregates. */
export function statsRoutes(context: RouteContext): FastifyPluginAsync {
  return async (app) => {
    app.get('/stats', { schema: { summary: 'Instance statistics', response: { 200: StatsSchema } } }, async (_request, reply) => {
      const cached = await context.cache.through('stats', async () => {
        const stats = await getStats(context, context);
        return { body: reply.serialize({ ...stats, s3BillPerMonth: stats.storageBillPerMonth }) as string, headers: {} };
      });
      return reply.type('application/json; charset=utf-8').send(cached.body);
    });
  };
}
