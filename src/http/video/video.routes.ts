import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { getLivestreamDetails } from '../../core/workflow/get-livestream-details.js';
import { audienceOf } from '../auth/audience.js';
import type { Guard } from '../auth/guard.js';
import type { RouteContext } from '../context.js';
import { problemResponses } from '../responses.schema.js';
import { presentDetails } from '../livestreams/record.presenter.js';
import { LivestreamDetailsSchema, LivestreamIdParamsSchema } from '../livestreams/record.schema.js';

/** `GET /api/video/{id}`: one record with its capture details (its source URL and failure reason whole for the admin only). */
export function videoRoutes(context: RouteContext, guard: Pick<Guard, 'optional'>): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/video/:id',
      {
        schema: {
          operationId: 'getVideo',
          summary: 'One livestream with its capture details',
          params: LivestreamIdParamsSchema,
          response: { 200: LivestreamDetailsSchema, ...problemResponses },
        },
      },
      async (request, reply) => {
        const audience = await audienceOf(guard, request, reply);
        const { record, capture } = await getLivestreamDetails(context, request.params.id);
        return presentDetails(record, context.publicUrl, capture, audience);
      },
    );
  };
}
