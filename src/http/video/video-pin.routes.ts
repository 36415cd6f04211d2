import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import type { RetentionRepo } from '../../core/retention/ports.js';
import { pinLivestream } from '../../core/retention/pin-livestream.js';
import { callerOf, type Guard } from '../auth/guard.js';
import { LivestreamIdParamsSchema } from '../livestreams/record.schema.js';
import { problemResponse, problemResponses } from '../responses.schema.js';

/** What pinning uses. */
export interface VideoPinRouteDeps {
  retention: Pick<RetentionRepo, 'setPinned'>;
  guard: Pick<Guard, 'requireAdmin'>;
}

const PinnedSchema = Type.Object({ id: Type.String(), pinned: Type.Boolean({ description: 'true: kept whatever the retention rules say' }) });

/** Admin: `PUT /api/video/{id}/pin` pins a record (retention keeps it), `DELETE` unpins it. */
export function videoPinRoutes(deps: VideoPinRouteDeps): FastifyPluginAsyncTypebox {
  const { guard } = deps;
  return async (app) => {
    for (const [method, pinned] of [
      ['PUT', true],
      ['DELETE', false],
    ] as const) {
      app.route({
        method,
        url: '/video/:id/pin',
        onRequest: guard.requireAdmin,
        schema: {
          operationId: pinned ? 'pinVideo' : 'unpinVideo',
          summary: pinned ? 'Admin: pins a record: retention keeps it whatever the rules' : 'Admin: unpins a record: retention rules apply to it again',
          params: LivestreamIdParamsSchema,
          response: { 200: PinnedSchema, 404: problemResponse('`livestream_not_found`'), ...problemResponses },
        },
        handler: async (request) => {
          await pinLivestream(deps, { caller: callerOf(request), id: request.params.id, pinned });
          return { id: request.params.id, pinned };
        },
      });
    }
  };
}
