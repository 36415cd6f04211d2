import type { FastifyPluginAsync } from 'fastify';
import Type from 'typebox';
import { getGrowth } from '../../core/get-growth.js';
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

const GrowthSchema = Type.Array(
  Type.Object({
    month: Type.String({ pattern: '^\\d{4}-\\d{2}$', description: 'YYYY-MM (UTC) of the scheduled start' }),
    count: Type.Integer({ description: 'finished livestreams of that month' }),
    fileSizeBytes: Type.Integer({ description: 'their stored bytes' }),
    lengthSeconds: Type.Integer({ description: 'their length in seconds' }),
    totalCount: Type.Integer({ description: 'finished livestreams up to and including that month' }),
    totalFileSizeBytes: Type.Integer({ description: 'their stored bytes up to and including that month' }),
  }),
  { $id: 'StatsGrowth', description: 'months without a finished livestream are left out; oldest first' },
);

/** `GET /api/stats` (instance totals from maintained aggregates) and `GET /api/stats/growth`. */
export function statsRoutes(context: RouteContext): FastifyPluginAsync {
  return async (app) => {
    app.get('/stats', { schema: { operationId: 'getStats', summary: 'Instance statistics', response: { 200: StatsSchema } } }, async (_request, reply) => {
      const cached = await context.cache.through('stats', async () => {
        const stats = await getStats(context, context);
        return { body: reply.serialize({ ...stats, s3BillPerMonth: stats.storageBillPerMonth }) as string, headers: {} };
      });
      return reply.type('application/json; charset=utf-8').send(cached.body);
    });
    app.get('/stats/growth', { schema: { operationId: 'getStatsGrowth', summary: 'The archive per month: finished livestreams and their size, with running totals', response: { 200: GrowthSchema } } }, async (_request, reply) => {
      const cached = await context.cache.through('stats-growth', async () => ({ body: reply.serialize(await getGrowth(context)) as string, headers: {} }));
      return reply.type('application/json; charset=utf-8').send(cached.body);
    });
  };
}
