// Decisions: docs/decisions/0079-recording-progress.md
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ArchiveStore } from '../../core/archive/ports.js';
import { getLiveFrame } from '../../core/playback/get-live-frame.js';
import type { CaptureStates, FrameRequestSignal } from '../../core/capture/ports.js';
import { AppError } from '../../core/errors.js';
import type { LivestreamRepo } from '../../core/records/ports.js';
import { isNotModified } from '../feeds/conditional.js';
import { LivestreamIdParamsSchema } from '../livestreams/record.schema.js';
import { bytesResponse, problemResponse, problemResponses, rateLimitedResponse } from '../responses.schema.js';
import { limitEachClient, type ClientRate } from '../client-rate-limit.js';

/**
 * The frame is replaced about once a minute while someone asks for it: a copy is fresh for half of
 * that, then checked again (304 while it is the same frame); the record's `frameUrl` names the
 * frame's time, so a page showing a new frame asks a new URL at once (and so looks again).
 */
const FRAME_CACHE = 'public, max-age=30';
/** Frames one client may ask for: a queue page of a hundred live records asks about 200 a minute (a look every 30 s). */
const FRAME_RATE: ClientRate = { max: 600, windowSeconds: 60, what: 'frame requests' };

/** What the recent frame's route uses. */
export interface LiveFrameRouteDeps {
  livestreams: LivestreamRepo;
  captures: CaptureStates;
  looks: FrameRequestSignal;
  store: Pick<ArchiveStore, 'stat' | 'read'>;
}

/** `GET /api/video/{id}/frame.jpg`: a frame of a recent segment of a record being recorded. */
export function liveFrameRoutes(deps: LiveFrameRouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    await limitEachClient(app, FRAME_RATE);
    app.get(
      '/video/:id/frame.jpg',
      {
        schema: {
          operationId: 'getLiveFrame',
          summary: 'A JPEG of a frame of a recent segment of a record being recorded, replaced about once a minute while it is asked for',
          description:
            'Asking is a look: the worker recording the record makes a frame at once when it has none a minute old, then one a minute until 150 s pass without a look. Answers 304 to a copy of the same frame (ETag, Last-Modified: when it was taken). 404 live_frame_not_found before the first frame (being made), 410 live_ended once the record is finished or failed (its thumbnail replaces it). 429 too_many_requests past 600 a minute from one client.',
          params: LivestreamIdParamsSchema,
          response: {
            200: bytesResponse('The frame', ['image/jpeg']),
            304: { description: 'The frame the client holds is current' },
            404: problemResponse('`livestream_not_found`; `live_frame_not_found`: no frame yet (one is being made)'),
            410: problemResponse('`live_ended`: the record is finished or failed'),
            ...problemResponses,
            ...rateLimitedResponse,
          },
        },
      },
      async (request, reply) => {
        const { key, takenAt } = await getLiveFrame(deps, request.params.id);
        const etag = `"${takenAt.getTime()}"`;
        reply.header('cache-control', FRAME_CACHE).header('etag', etag).header('last-modified', takenAt.toUTCString());
        if (isNotModified(request.headers, etag, new Date(Math.floor(takenAt.getTime() / 1000) * 1000))) return reply.code(304).send();
        // the capture ended since it was read, and finalize deleted the frame
        const stored = await deps.store.stat(key);
        if (stored === null) throw new AppError('not_found', 'live_frame_not_found', `${request.params.id} has no recent frame any more.`);
        return reply
          .type('image/jpeg')
          .header('content-length', stored.bytes)
          .send(await deps.store.read(key));
      },
    );
  };
}
