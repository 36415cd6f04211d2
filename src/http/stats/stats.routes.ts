import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { getGrowth } from '../../core/livestream/get-growth.js';
import { getStats } from '../../core/livestream/get-stats.js';
import { GrowthSchema, StatsSchema } from './stats.schema.js';
import type { LivestreamRepo } from '../../core/livestream/ports.js';
import { sendCached, type ReadCache } from '../read-cache.js';

/** What the statistics routes use: the records' aggregates, and the storage price the bill is estimated with. */
export interface StatsRouteDeps {
  livestreams: LivestreamRepo;
  cache: ReadCache;
  usdPerGbPerMonth: number;
}

/** `GET /api/stats` (instance totals from maintained aggregates) and `GET /api/stats/growth`. */
export function statsRoutes(deps: StatsRouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/stats', { schema: { operationId: 'getStats', summary: 'Instance statistics', response: { 200: StatsSchema } } }, async (request, reply) =>
      sendCached(request, reply, deps.cache, async () => {
        const stats = await getStats(deps, deps);
        return { body: reply.serialize({ ...stats, s3BillPerMonth: stats.storageBillPerMonth }) as string, headers: {} };
      }),
    );
    app.get(
      '/stats/growth',
      {
        schema: {
          operationId: 'getStatsGrowth',
          summary: 'The archive per month: finished livestreams and their size, with running totals',
          response: { 200: GrowthSchema },
        },
      },
      async (request, reply) => sendCached(request, reply, deps.cache, async () => ({ body: reply.serialize(await getGrowth(deps)) as string, headers: {} })),
    );
  };
}
