import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { sendProblem } from '../problem.js';
import { problemResponse } from '../responses.schema.js';

const tags = ['operations'];

/** What the health routes use: whether PostgreSQL answers. */
export interface HealthRouteDeps {
  isDatabaseReachable: () => Promise<boolean>;
}

/** `/healthz` (the process answers) and `/readyz` (and its database does). */
export function healthRoutes(deps: HealthRouteDeps): FastifyPluginAsyncTypebox {
  const { isDatabaseReachable } = deps;
  return async (app) => {
    app.get(
      '/healthz',
      {
        schema: {
          operationId: 'getHealth',
          tags,
          summary: 'Liveness: the process answers (200); it does not ask the database',
          response: { 200: Type.Object({ status: Type.Literal('ok') }) },
        },
      },
      async () => ({ status: 'ok' as const }),
    );
    app.get(
      '/readyz',
      {
        schema: {
          operationId: 'getReadiness',
          tags,
          summary: 'Readiness: the process and its PostgreSQL answer (200); 503 database_unavailable when PostgreSQL does not',
          response: { 200: Type.Object({ status: Type.Literal('ready') }), 503: problemResponse('PostgreSQL does not answer: database_unavailable') },
        },
      },
      async (_request, reply) => {
        if (await isDatabaseReachable()) return { status: 'ready' as const };
        return sendProblem(reply, 503, 'database_unavailable', 'PostgreSQL does not answer.');
      },
    );
  };
}
