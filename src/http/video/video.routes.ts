import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { getLivestreamDetails } from '../../core/livestream/get-livestream-details.js';
import type { RouteContext } from '../context.js';
import { problemResponses } from '../responses.schema.js';
import { presentDetails } from '../livestreams/record.presenter.js';
import { LivestreamDetailsSchema, LivestreamIdParamsSchema } from '../livestreams/record.schema.js';

/** `GET /api/video/{id}`: one record with its capture details. */
export function videoRoutes(context: RouteContext): FastifyPluginAsyncTypebox {
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
      async (request) => {
        const { record, capture } = await getLivestreamDetails(context, request.params.id);
        return presentDetails(record, context.publicUrl, capture);
      },
    );
  };
}
