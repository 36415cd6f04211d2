// Decisions: docs/decisions/0078-disk-space-and-a-full-disk.md
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { DiskFigures } from '../../core/archive/disk-figures.js';
import { getGrowth } from '../../core/records/get-growth.js';
import { getStats } from '../../core/records/get-stats.js';
import { audienceOf } from '../auth/audience.js';
import type { Guard } from '../auth/guard.js';
import { GrowthSchema, StatsSchema, type DiskStats } from './stats.schema.js';
import type { LivestreamRepo } from '../../core/records/ports.js';
import { sendCached, type ReadCache } from '../read-cache.js';

/** What the statistics routes use: the records' aggregates, the storage price the bill is estimated with, and the disks (admins). */
export interface StatsRouteDeps {
  livestreams: LivestreamRepo;
  cache: ReadCache;
  usdPerGbPerMonth: number;
  guard: Pick<Guard, 'optional'>;
  /** The disk figures (read a few seconds apart at most); unset: not shown. */
  disks?: () => Promise<DiskFigures>;
}

/** `GET /api/stats` (instance totals from maintained aggregates; the disks for an admin) and `GET /api/stats/growth`. */
export function statsRoutes(deps: StatsRouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/stats', { schema: { operationId: 'getStats', summary: 'Instance statistics', response: { 200: StatsSchema } } }, async (request, reply) => {
      const { disks } = deps;
      // the disks change without a record changing: an admin's answer is never cached
      if (disks !== undefined && (await audienceOf(deps.guard, request, reply)) === 'admin') {
        const [stats, disk] = await Promise.all([getStats(deps, deps), disks()]);
        return reply.send({ ...stats, s3BillPerMonth: stats.storageBillPerMonth, disk: presentDisk(disk) });
      }
      return sendCached(request, reply, { cache: deps.cache, dependsOn: ['records'], atTheDoor: true }, async () => {
        const stats = await getStats(deps, deps);
        return { body: reply.serialize({ ...stats, s3BillPerMonth: stats.storageBillPerMonth }) as string, headers: {} };
      });
    });
    app.get(
      '/stats/growth',
      {
        schema: {
          operationId: 'getStatsGrowth',
          summary: 'The archive per month: finished livestreams and their size, with running totals',
          response: { 200: GrowthSchema },
        },
      },
      async (request, reply) =>
        sendCached(request, reply, { cache: deps.cache, dependsOn: ['records'], atTheDoor: true }, async () => ({
          body: reply.serialize(await getGrowth(deps)) as string,
          headers: {},
        })),
    );
  };
}

/** The disk figures as JSON: a report's time as ISO 8601. */
function presentDisk(figures: DiskFigures): DiskStats {
  return { ...figures, spools: figures.spools.map((spool) => ({ ...spool, reportedAt: spool.reportedAt.toISOString() })) };
}
