import type { FastifyPluginAsync } from 'fastify';
import Type, { type Static } from 'typebox';
import { getLivestream } from '../../core/get-livestream.js';
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
      { schema: { summary: 'One livestream with its capture details', params: VideoParamsSchema, response: { 200: LivestreamDetailsSchema, ...problemResponses } } },
      async (request) => {
        const record = await getLivestream(context, request.params.id);
        const capture = await context.captures.get(record.id);
        const details =
          capture === null
            ? null
            : { capture, parts: await context.captures.parts(record.id), gaps: await context.captures.gaps(record.id) };
        return presentDetails(record, context.publicUrl, details);
      },
    );
  };
}
