import type { FastifyPluginAsync } from 'fastify';
import Type, { type Static } from 'typebox';
import { getLivestreamDetails } from '../../core/get-livestream-details.js';
import { LIVESTREAM_ID_PATTERN } from '../../core/livestream.js';
import type { RouteContext } from '../context.js';
import { problemResponses } from '../problem.js';
import { presentDetails } from '../livestreams/record.presenter.js';
import { LivestreamDetailsSchema } from '../livestreams/record.schema.js';

const VideoParamsSchema = Type.Object({
  id: Type.String({ pattern: LIVESTREAM_ID_PATTERN, description: '1–64 letters, digits, "_" or "-"' }),
});

/** `GET /api/video/{id}`: one record with its capture details. */
export function videoRoutes(context: RouteContext): FastifyPluginAsync {
  return async (app) => {
    app.get<{ Params: Static<typeof VideoParamsSchema> }>(
      '/video/:id',
      { schema: { operationId: 'getVideo', summary: 'One livestream with its capture details', params: VideoParamsSchema, response: { 200: LivestreamDetailsSchema, ...problemResponses } } },
      async (request) => {
        const { record, capture } = await getLivestreamDetails(context, request.params.id);
        return presentDetails(record, context.publicUrl, capture);
      },
    );
  };
}
