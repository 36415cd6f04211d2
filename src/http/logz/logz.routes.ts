// Decisions: docs/decisions/0041-downloads-and-encoder-log.md
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type, { type Static } from 'typebox';
import { isRecording } from '../../core/capture/capture-lifecycle.js';
import { AppError } from '../../core/errors.js';
import { LIVESTREAM_ID_PATTERN } from '../../core/vocabulary.js';
import { problemResponse, problemResponses } from '../responses.schema.js';
import type { LivestreamRepo } from '../../core/records/ports.js';
import type { CaptureRepo } from '../../core/capture/ports.js';

const LogzQuerySchema = Type.Object({
  id: Type.Optional(Type.String({ pattern: LIVESTREAM_ID_PATTERN, description: 'the livestream id' })),
  url: Type.Optional(Type.String({ maxLength: 2048, description: 'the source URL the livestream was submitted with' })),
});

/** What the capture log route uses. */
export interface LogzRouteDeps {
  livestreams: LivestreamRepo;
  captures: CaptureRepo;
}

/** `GET /api/logz`: the encoder log of a capture in progress, from PostgreSQL (any api process). */
export function logzRoutes(deps: LogzRouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/logz',
      {
        schema: {
          operationId: 'getCaptureLog',
          summary: 'Encoder log of a capture in progress (text/plain); the latest capture when no id or url is given',
          querystring: LogzQuerySchema,
          response: {
            200: { description: 'The encoder log', content: { 'text/plain': { schema: Type.String() } } },
            404: problemResponse('`capture_not_running`: no capture of the record is running'),
            ...problemResponses,
          },
        },
      },
      async (request, reply) => {
        const id = await pickCapture(deps, request.query);
        const capture = id === null ? null : await deps.captures.get(id);
        if (id === null || capture === null || !isRecording(capture.state)) {
          throw new AppError('not_found', 'capture_not_running', id === null ? 'No capture is running.' : `No capture of ${id} is running.`);
        }
        reply.header('cache-control', 'no-store');
        return reply.type('text/plain; charset=utf-8').send(await deps.captures.readLog(id));
      },
    );
  };
}

async function pickCapture(deps: LogzRouteDeps, query: Static<typeof LogzQuerySchema>): Promise<string | null> {
  if (query.id !== undefined) return query.id;
  if (query.url !== undefined) return (await deps.livestreams.findActiveBySource(query.url))?.id ?? null;
  return deps.captures.latestRunning();
}
