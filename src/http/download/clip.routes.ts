import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import Type, { type Static } from 'typebox';
import { clipRecording, type ClipDeps } from '../../core/playback/clip-recording.js';
import type { Guard } from '../auth/guard.js';
import { FeedTokenQuerySchema } from '../feeds/feeds.schema.js';
import { LivestreamIdParamsSchema } from '../livestreams/record.schema.js';
import { bytesResponse, problemResponse, problemResponses, rateLimitedResponse } from '../responses.schema.js';
import { ClipGate, type ClipLimits } from './clip-gate.js';

/** Where the clip begins in the recording (seconds): the keyframe at or before the start asked for. */
export const CLIP_START_HEADER = 'x-kura-clip-start';
/** How long the clip is (seconds), from its start to the end asked for. */
export const CLIP_DURATION_HEADER = 'x-kura-clip-duration';
/** The stretches the recording lost inside the clip, which it leaves out: `at+seconds` (from its start), comma-separated. */
export const CLIP_LOST_HEADER = 'x-kura-clip-lost';

export interface ClipRouteDeps extends ClipDeps {
  guard: Guard;
  limits: ClipLimits;
}

const time = (what: string) =>
  Type.String({ minLength: 1, maxLength: 32, description: `${what}: seconds (3723 or 3723.5), a clock (1:02:03) or 1h02m03s`, examples: ['1:02:03'] });

const ClipQuerySchema = Type.Object({
  ...FeedTokenQuerySchema.properties,
  start: Type.Optional(time('where the clip starts (with `end`); it starts at the keyframe at or before it')),
  end: Type.Optional(time('where it ends (with `start`); past the end of the recording, it ends there')),
  last: Type.Optional(time('instead of `start` and `end`: the last this many seconds recorded')),
});

type ClipQuery = Static<typeof ClipQuerySchema>;

const seconds = (description: string) => Type.String({ pattern: '^\\d+\\.\\d{3}$', description });

/** `GET /api/download/{id}/clip`: part of an archive, cut without re-encoding and sent as it is cut. */
export function clipRoutes(deps: ClipRouteDeps): FastifyPluginAsyncTypebox {
  const gate = new ClipGate(deps.limits);
  return async (app) => {
    app.get(
      '/download/:id/clip',
      {
        config: { access: 'feed' },
        schema: {
          operationId: 'downloadClip',
          summary:
            'Download part of an archive as an MP4, cut without re-encoding (from the keyframe at or before `start`), streamed as it is cut; the headers say where it truly starts and how long it is',
          params: LivestreamIdParamsSchema,
          querystring: ClipQuerySchema,
          response: {
            200: {
              ...bytesResponse('The clip: a fragmented MP4, its file name the title and the times', ['video/mp4']),
              headers: {
                [CLIP_START_HEADER]: seconds('where the clip starts in the recording, in seconds'),
                [CLIP_DURATION_HEADER]: seconds('how long the clip is, in seconds'),
                [CLIP_LOST_HEADER]: Type.Optional(
                  Type.String({
                    pattern: '^\\d+\\.\\d{3}\\+\\d+\\.\\d{3}(,\\d+\\.\\d{3}\\+\\d+\\.\\d{3})*$',
                    description: 'only when the recording lost stretches inside the clip, which it leaves out: `at+seconds` from its start, comma-separated',
                  }),
                ),
              },
            },
            ...rateLimitedResponse,
            404: problemResponse('`livestream_not_found`'),
            409: problemResponse(
              '`archive_not_ready`: not archived (yet); `capture_not_started`; `archive_unreadable`: the video cannot be cut; `live_not_playable`: a stream being recorded with its audio as a separate HLS rendition (cut once archived)',
            ),
            410: problemResponse('`archive_missing`: the video is gone from storage'),
            ...problemResponses,
          },
        },
      },
      (request, reply) => sendClip(deps, gate, request, reply),
    );
  };
}

/** Cuts the clip the query asks for and sends it as ffmpeg writes it; the caller's place is given back when it ends or the client goes. */
async function sendClip(deps: ClipRouteDeps, gate: ClipGate, request: FastifyRequest<{ Params: { id: string }; Querystring: ClipQuery }>, reply: FastifyReply) {
  const caller = await deps.guard.optional(request, reply);
  const leave = gate.enter(caller === null ? `address ${request.ip}` : `user ${caller.user.id}`);
  try {
    const { start, end, last } = request.query;
    const clip = await clipRecording(deps, { id: request.params.id, start, end, last });
    clip.body.once('close', leave);
    request.raw.once('close', () => {
      if (!reply.raw.writableFinished) clip.cancel();
    });
    reply.type(clip.meta.contentType).header('content-disposition', clip.meta.contentDisposition);
    reply.header(CLIP_START_HEADER, clip.startSeconds.toFixed(3)).header(CLIP_DURATION_HEADER, clip.durationSeconds.toFixed(3));
    if (clip.lost.length > 0) reply.header(CLIP_LOST_HEADER, clip.lost.map((l) => `${l.atSeconds.toFixed(3)}+${l.seconds.toFixed(3)}`).join(','));
    return reply.send(clip.body);
  } catch (error) {
    leave();
    throw error;
  }
}
