import type { FastifyPluginAsync } from 'fastify';
import { sendProblem } from '../problem.js';

/** `/healthz` (the process answers) and `/readyz` (and its database does). */
export function healthRoutes(isDatabaseReachable: () => Promise<boolean>): FastifyPluginAsync {
  return async (app) => {
    app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
    app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
      if (await isDatabaseReachable()) return { status: 'ready' };
      return sendProblem(reply, 503, 'database_unavailable', 'PostgreSQL does not answer.');
    });
  };
}
