import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { getLivestreamDetails } from '../../core/record-actions/get-livestream-details.js';
import { audienceOf } from '../auth/audience.js';
import type { Guard } from '../auth/guard.js';
import { problemResponse, problemResponses } from '../responses.schema.js';
import { presentDetails } from '../livestreams/record.presenter.js';
import { LivestreamDetailsSchema, LivestreamIdParamsSchema } from '../livestreams/record.schema.js';
import type { LivestreamRepo, WatchLooks } from '../../core/records/ports.js';
import type { CaptureStates, PartLog } from '../../core/capture/ports.js';
import type { MomentRepo } from '../../core/moments/ports.js';
import { presentMoment } from '../moments/moments.schema.js';

/** What the record details route uses. */
export interface VideoRouteDeps {
  livestreams: LivestreamRepo;
  watchLooks: WatchLooks;
  captures: CaptureStates & PartLog;
  moments: MomentRepo;
  publicUrl: string;
  guard: Pick<Guard, 'optional'>;
}

/** `GET /api/video/{id}`: one record with its capture details (its source URL and failure reason whole for the admin only). */
export function videoRoutes(deps: VideoRouteDeps): FastifyPluginAsyncTypebox {
  const { guard } = deps;
  return async (app) => {
    app.get(
      '/video/:id',
      {
        schema: {
          operationId: 'getVideo',
          summary: 'One livestream with its capture details',
          params: LivestreamIdParamsSchema,
          response: { 200: LivestreamDetailsSchema, 404: problemResponse('`livestream_not_found`'), ...problemResponses },
        },
      },
      async (request, reply) => {
        const audience = await audienceOf(guard, request, reply);
        const details = await getLivestreamDetails(deps, request.params.id);
        const moments = await deps.moments.of(details.record.id);
        return { ...presentDetails(details, deps.publicUrl, audience), moments: moments.map(presentMoment) };
      },
    );
  };
}
